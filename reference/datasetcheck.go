package reference

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

var (
	prefixPattern = regexp.MustCompile(`^08[0-9]{2}$`)
	trxNumberSeq  = regexp.MustCompile(`^INV/[0-9]{8}/P([0-9]+)/([0-9]{8})$`)
)

// validate reports every fault of the data set at once, so an operator fixes
// a file in one pass. Each section is checked in the order the file lists
// them; a later section's references (an account's partner, a product's
// operator) are checked against the indexes the earlier sections built.
func (ds *Dataset) validate() error {
	c := &datasetCheck{ds: ds}
	if strings.TrimSpace(ds.OperatorTeam) == "" {
		c.bad("operator_team is required")
	}
	c.pricePlans()
	c.accounts()
	c.partners()
	c.accountPartners()
	c.operators()
	c.subCategories()
	c.products()
	c.paymentMethods()
	c.transactions()
	return errors.Join(c.errs...)
}

// datasetCheck collects a data set's faults and the indexes by which later
// sections are checked against earlier ones.
type datasetCheck struct {
	ds   *Dataset
	errs []error

	plans     map[int64]bool
	accountOf map[int64]AccountSeed
	partnerOf map[int64]bool
	operator  map[int64]bool
	subs      map[string]bool
	product   map[int64]bool
}

func (c *datasetCheck) bad(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

// newID checks the id of a section's i-th entry: positive, and not seen
// before in the section.
func (c *datasetCheck) newID(section string, i int, id int64, seen map[int64]bool) {
	if id <= 0 {
		c.bad("%s[%d]: id must be positive", section, i)
	}
	if seen[id] {
		c.bad("%s[%d]: duplicate id %d", section, i, id)
	}
	seen[id] = true
}

func (c *datasetCheck) pricePlans() {
	c.plans = map[int64]bool{}
	for i, p := range c.ds.PricePlans {
		c.newID("price_plans", i, p.ID, c.plans)
		if p.MarkupBPS < 0 {
			c.bad("price_plans[%d]: markup_bps must not be negative", i)
		}
	}
}

func (c *datasetCheck) accounts() {
	c.accountOf = map[int64]AccountSeed{}
	tokens := map[string]bool{}
	phones := map[partnerKey]bool{} // keyed as the store indexes them
	emails := map[partnerKey]bool{}
	for i, a := range c.ds.Accounts {
		if a.ID <= 0 {
			c.bad("accounts[%d]: id must be positive", i)
		}
		if _, dup := c.accountOf[a.ID]; dup {
			c.bad("accounts[%d]: duplicate id %d", i, a.ID)
		}
		c.accountOf[a.ID] = a
		if a.Token == "" {
			c.bad("accounts[%d] (id %d): token is required", i, a.ID)
		} else if tokens[a.Token] {
			c.bad("accounts[%d] (id %d): duplicate token %q", i, a.ID, a.Token)
		}
		tokens[a.Token] = true
		c.accountContact(i, a, phones, emails)
		if _, err := parseDateTime(a.RegisteredAt); err != nil {
			c.bad("accounts[%d] (id %d): registered_at %q is not YYYY-MM-DD HH:MM:SS", i, a.ID, a.RegisteredAt)
		}
		if a.Balance < 0 || a.Coins < 0 {
			c.bad("accounts[%d] (id %d): balance and coins must not be negative", i, a.ID)
		}
	}
}

// accountContact checks an account's phone and email: well formed, and
// unique within its partner.
func (c *datasetCheck) accountContact(i int, a AccountSeed, phones, emails map[partnerKey]bool) {
	pk := partnerKey{a.Partner, a.Phone}
	if !validPhoneNumber(a.Phone) {
		c.bad("accounts[%d] (id %d): phone %q is not 08 then 8 to 11 digits", i, a.ID, a.Phone)
	} else if phones[pk] {
		c.bad("accounts[%d] (id %d): duplicate phone %q in partner %d", i, a.ID, a.Phone, a.Partner)
	}
	phones[pk] = true
	ek := partnerKey{a.Partner, lowerEmail(a.Email)}
	if !emailPattern.MatchString(a.Email) {
		c.bad("accounts[%d] (id %d): email %q is not valid", i, a.ID, a.Email)
	} else if emails[ek] {
		c.bad("accounts[%d] (id %d): duplicate email %q in partner %d", i, a.ID, a.Email, a.Partner)
	}
	emails[ek] = true
}

func (c *datasetCheck) partners() {
	c.partnerOf = map[int64]bool{}
	keys := map[string]bool{}
	for i, p := range c.ds.Partners {
		c.newID("partners", i, p.ID, c.partnerOf)
		if p.SecretKey == "" {
			c.bad("partners[%d] (id %d): secret_key is required", i, p.ID)
		} else if keys[p.SecretKey] {
			c.bad("partners[%d] (id %d): duplicate secret_key %q", i, p.ID, p.SecretKey)
		}
		keys[p.SecretKey] = true
		if !c.plans[p.PricePlanID] {
			c.bad("partners[%d] (id %d): unknown price_plan %d", i, p.ID, p.PricePlanID)
		}
		main, ok := c.accountOf[p.MainAccountID]
		switch {
		case !ok:
			c.bad("partners[%d] (id %d): unknown main_account %d", i, p.ID, p.MainAccountID)
		case main.Partner != p.ID || !main.Main:
			c.bad("partners[%d] (id %d): main_account %d must be a main account of the partner", i, p.ID, p.MainAccountID)
		}
	}
}

// accountPartners checks, once the partners are known, that every account
// belongs to one and that no partner has two main accounts.
func (c *datasetCheck) accountPartners() {
	mains := map[int64]int{}
	for i, a := range c.ds.Accounts {
		if !c.partnerOf[a.Partner] {
			c.bad("accounts[%d] (id %d): unknown partner %d", i, a.ID, a.Partner)
		}
		if a.Main {
			mains[a.Partner]++
		}
	}
	for p, n := range mains {
		if n > 1 {
			c.bad("partner %d has %d main accounts, want 1", p, n)
		}
	}
}

func (c *datasetCheck) operators() {
	c.operator = map[int64]bool{}
	prefixes := map[string]int64{}
	for i, o := range c.ds.Operators {
		if c.operator[o.ID] {
			c.bad("operators[%d]: duplicate id %d", i, o.ID)
		}
		c.operator[o.ID] = true
		for _, p := range o.Prefixes {
			if !prefixPattern.MatchString(p) {
				c.bad("operators[%d] (id %d): prefix %q is not 08 and two digits", i, o.ID, p)
			}
			if other, dup := prefixes[p]; dup {
				c.bad("operators[%d] (id %d): prefix %q already belongs to operator %d", i, o.ID, p, other)
			}
			prefixes[p] = o.ID
		}
	}
}

func (c *datasetCheck) subCategories() {
	c.subs = map[string]bool{}
	for i, s := range c.ds.SubCategories {
		if s.Code == "" {
			c.bad("sub_categories[%d]: code is required", i)
		}
		if c.subs[s.Code] {
			c.bad("sub_categories[%d]: duplicate code %q", i, s.Code)
		}
		c.subs[s.Code] = true
	}
}

func (c *datasetCheck) products() {
	c.product = map[int64]bool{}
	promos := map[int64]bool{}
	for i, p := range c.ds.Products {
		c.newID("products", i, p.ID, c.product)
		if !c.operator[p.OperatorID] {
			c.bad("products[%d] (id %d): unknown operator %d", i, p.ID, p.OperatorID)
		}
		if !c.subs[p.SubCategory] {
			c.bad("products[%d] (id %d): unknown sub_category %q", i, p.ID, p.SubCategory)
		}
		if p.Status != ProductActive && p.Status != ProductInactive {
			c.bad("products[%d] (id %d): status %q is not active or inactive", i, p.ID, p.Status)
		}
		if p.BasePrice <= 0 {
			c.bad("products[%d] (id %d): base_price must be positive", i, p.ID)
		}
		if p.Promotion == nil {
			continue
		}
		if promos[p.Promotion.ID] {
			c.bad("products[%d] (id %d): duplicate promotion id %d", i, p.ID, p.Promotion.ID)
		}
		promos[p.Promotion.ID] = true
		if p.Promotion.Discount < 0 || p.Promotion.Discount >= p.BasePrice {
			c.bad("products[%d] (id %d): promotion discount must be between 0 and base_price", i, p.ID)
		}
	}
}

func (c *datasetCheck) paymentMethods() {
	methods := map[int64]bool{}
	for i, m := range c.ds.PaymentMethods {
		if m.ID <= 0 {
			c.bad("payment_methods[%d]: id must be positive (0 is the internal balance/coin method)", i)
		}
		if methods[m.ID] {
			c.bad("payment_methods[%d]: duplicate id %d", i, m.ID)
		}
		methods[m.ID] = true
		if m.MinimumPayment < 0 || m.FeeAmount < 0 {
			c.bad("payment_methods[%d] (id %d): minimum_payment and fee_amount must not be negative", i, m.ID)
		}
	}
}

func (c *datasetCheck) transactions() {
	ids := map[int64]bool{}
	trxIDs := map[partnerKey]bool{}
	numbers := map[string]bool{}
	for i, t := range c.ds.Transactions {
		if t.ID <= 0 || ids[t.ID] {
			c.bad("transactions[%d]: id %d must be positive and unique", i, t.ID)
		}
		ids[t.ID] = true
		if t.PaymentFormed {
			c.bad("transactions[%d] (id %d): only transactions whose payment was never formed can be seeded", i, t.ID)
		}
		c.transactionOwner(i, t)
		k := partnerKey{t.Partner, t.PartnerTrxID}
		if t.PartnerTrxID == "" || trxIDs[k] {
			c.bad("transactions[%d] (id %d): partner_trx_id %q must be set and unique per partner", i, t.ID, t.PartnerTrxID)
		}
		trxIDs[k] = true
		if m := trxNumberSeq.FindStringSubmatch(t.TransactionNumber); m == nil || m[1] != fmt.Sprint(t.Partner) {
			c.bad("transactions[%d] (id %d): transaction_number %q is not INV/YYYYMMDD/P%d/NNNNNNNN", i, t.ID, t.TransactionNumber, t.Partner)
		}
		if numbers[t.TransactionNumber] {
			c.bad("transactions[%d] (id %d): duplicate transaction_number %q", i, t.ID, t.TransactionNumber)
		}
		numbers[t.TransactionNumber] = true
		if _, err := parseDateTime(t.CreatedAt); err != nil {
			c.bad("transactions[%d] (id %d): created_at %q is not YYYY-MM-DD HH:MM:SS", i, t.ID, t.CreatedAt)
		}
	}
}

// transactionOwner checks a seeded transaction's partner, account and
// product against the sections that define them.
func (c *datasetCheck) transactionOwner(i int, t TransactionSeed) {
	if !c.partnerOf[t.Partner] {
		c.bad("transactions[%d] (id %d): unknown partner %d", i, t.ID, t.Partner)
	}
	if a, ok := c.accountOf[t.Account]; !ok || a.Partner != t.Partner {
		c.bad("transactions[%d] (id %d): account %d is not an account of partner %d", i, t.ID, t.Account, t.Partner)
	}
	if !c.product[t.Product] {
		c.bad("transactions[%d] (id %d): unknown product %d", i, t.ID, t.Product)
	}
}
