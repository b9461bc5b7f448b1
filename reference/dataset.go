package reference

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

//go:embed dataset/default.yaml
var defaultDatasetYAML []byte

// Dataset is a decoded reference data set: the catalog, the partners and
// their accounts, and the transactions present at start.
type Dataset struct {
	// OperatorTeam replaces <operator_team> in the price plan message.
	OperatorTeam   string            `yaml:"operator_team"`
	PricePlans     []PricePlan       `yaml:"price_plans"`
	Partners       []Partner         `yaml:"partners"`
	Operators      []Operator        `yaml:"operators"`
	SubCategories  []SubCategory     `yaml:"sub_categories"`
	PaymentMethods []PaymentMethod   `yaml:"payment_methods"`
	Accounts       []AccountSeed     `yaml:"accounts"`
	Products       []Product         `yaml:"products"`
	Transactions   []TransactionSeed `yaml:"transactions"`
}

// AccountSeed is an account as the data set describes it.
type AccountSeed struct {
	ID                int64   `yaml:"id"`
	Partner           int64   `yaml:"partner"`
	Name              string  `yaml:"name"`
	Email             string  `yaml:"email"`
	Phone             string  `yaml:"phone"`
	DeviceID          string  `yaml:"device_id"`
	Token             string  `yaml:"token"`
	Main              bool    `yaml:"main"`
	Level             int64   `yaml:"level"`
	ReferralCode      string  `yaml:"referral_code"`
	IdentityNumber    *string `yaml:"identity_number"`
	RegisteredAt      string  `yaml:"registered_at"`
	Balance           int64   `yaml:"balance"`
	Coins             int64   `yaml:"coins"`
	WalletUnavailable bool    `yaml:"wallet_unavailable"`
}

// TransactionSeed is a transaction present at start. Only transactions whose
// payment was never formed are supported: they exist for the 404 row
// "Transaksi payment belum terbentuk.".
type TransactionSeed struct {
	ID                int64  `yaml:"id"`
	Partner           int64  `yaml:"partner"`
	Account           int64  `yaml:"account"`
	PartnerTrxID      string `yaml:"partner_trx_id"`
	TransactionNumber string `yaml:"transaction_number"`
	Product           int64  `yaml:"product"`
	Msisdn            string `yaml:"msisdn"`
	PaymentFormed     bool   `yaml:"payment_formed"`
	CreatedAt         string `yaml:"created_at"`
}

// DefaultDataset returns the embedded data set (reference/dataset/default.yaml),
// the one profiles/reference.yaml describes.
func DefaultDataset() (*Dataset, error) { return ParseDataset(defaultDatasetYAML) }

// LoadDataset reads and parses a data set file.
func LoadDataset(path string) (*Dataset, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	ds, err := ParseDataset(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// ParseDataset decodes a YAML data set and validates it: unknown keys,
// duplicate ids, tokens, secret keys, phone numbers and emails, and
// references to things that do not exist are reported with the offending
// entry.
func ParseDataset(data []byte) (*Dataset, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var ds Dataset
	if err := dec.Decode(&ds); err != nil {
		return nil, fmt.Errorf("dataset: decode: %w", err)
	}
	if err := ds.validate(); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return &ds, nil
}

// dateTimeLayout is the contract's `YYYY-MM-DD HH:MM:SS`.
const dateTimeLayout = "2006-01-02 15:04:05"

// wib is Western Indonesia Time, the zone of every time the server shows.
var wib = time.FixedZone("WIB", 7*60*60)

// FormatTime is the contract's `YYYY-MM-DD HH:MM:SS` of t, in WIB.
func FormatTime(t time.Time) string { return t.In(wib).Format(dateTimeLayout) }

func parseDateTime(s string) (time.Time, error) {
	return time.ParseInLocation(dateTimeLayout, s, wib)
}

var (
	prefixPattern = regexp.MustCompile(`^08[0-9]{2}$`)
	trxNumberSeq  = regexp.MustCompile(`^INV/[0-9]{8}/P([0-9]+)/([0-9]{8})$`)
)

func (ds *Dataset) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if strings.TrimSpace(ds.OperatorTeam) == "" {
		bad("operator_team is required")
	}
	plans := map[int64]bool{}
	for i, p := range ds.PricePlans {
		if p.ID <= 0 {
			bad("price_plans[%d]: id must be positive", i)
		}
		if plans[p.ID] {
			bad("price_plans[%d]: duplicate id %d", i, p.ID)
		}
		plans[p.ID] = true
		if p.MarkupBPS < 0 {
			bad("price_plans[%d]: markup_bps must not be negative", i)
		}
	}

	accounts := map[int64]AccountSeed{}
	tokens := map[string]bool{}
	phones := map[partnerKey]bool{} // keyed as the store indexes them
	emails := map[partnerKey]bool{}
	for i, a := range ds.Accounts {
		if a.ID <= 0 {
			bad("accounts[%d]: id must be positive", i)
		}
		if _, dup := accounts[a.ID]; dup {
			bad("accounts[%d]: duplicate id %d", i, a.ID)
		}
		accounts[a.ID] = a
		if a.Token == "" {
			bad("accounts[%d] (id %d): token is required", i, a.ID)
		} else if tokens[a.Token] {
			bad("accounts[%d] (id %d): duplicate token %q", i, a.ID, a.Token)
		}
		tokens[a.Token] = true
		pk := partnerKey{a.Partner, a.Phone}
		if !validPhoneNumber(a.Phone) {
			bad("accounts[%d] (id %d): phone %q is not 08 then 8 to 11 digits", i, a.ID, a.Phone)
		} else if phones[pk] {
			bad("accounts[%d] (id %d): duplicate phone %q in partner %d", i, a.ID, a.Phone, a.Partner)
		}
		phones[pk] = true
		ek := partnerKey{a.Partner, lowerEmail(a.Email)}
		if !emailPattern.MatchString(a.Email) {
			bad("accounts[%d] (id %d): email %q is not valid", i, a.ID, a.Email)
		} else if emails[ek] {
			bad("accounts[%d] (id %d): duplicate email %q in partner %d", i, a.ID, a.Email, a.Partner)
		}
		emails[ek] = true
		if _, err := parseDateTime(a.RegisteredAt); err != nil {
			bad("accounts[%d] (id %d): registered_at %q is not YYYY-MM-DD HH:MM:SS", i, a.ID, a.RegisteredAt)
		}
		if a.Balance < 0 || a.Coins < 0 {
			bad("accounts[%d] (id %d): balance and coins must not be negative", i, a.ID)
		}
	}

	partners := map[int64]bool{}
	keys := map[string]bool{}
	for i, p := range ds.Partners {
		if p.ID <= 0 {
			bad("partners[%d]: id must be positive", i)
		}
		if partners[p.ID] {
			bad("partners[%d]: duplicate id %d", i, p.ID)
		}
		partners[p.ID] = true
		if p.SecretKey == "" {
			bad("partners[%d] (id %d): secret_key is required", i, p.ID)
		} else if keys[p.SecretKey] {
			bad("partners[%d] (id %d): duplicate secret_key %q", i, p.ID, p.SecretKey)
		}
		keys[p.SecretKey] = true
		if !plans[p.PricePlanID] {
			bad("partners[%d] (id %d): unknown price_plan %d", i, p.ID, p.PricePlanID)
		}
		main, ok := accounts[p.MainAccountID]
		switch {
		case !ok:
			bad("partners[%d] (id %d): unknown main_account %d", i, p.ID, p.MainAccountID)
		case main.Partner != p.ID || !main.Main:
			bad("partners[%d] (id %d): main_account %d must be a main account of the partner", i, p.ID, p.MainAccountID)
		}
	}
	for i, a := range ds.Accounts {
		if !partners[a.Partner] {
			bad("accounts[%d] (id %d): unknown partner %d", i, a.ID, a.Partner)
		}
	}
	mains := map[int64]int{}
	for _, a := range ds.Accounts {
		if a.Main {
			mains[a.Partner]++
		}
	}
	for p, n := range mains {
		if n > 1 {
			bad("partner %d has %d main accounts, want 1", p, n)
		}
	}

	operators := map[int64]bool{}
	prefixes := map[string]int64{}
	for i, o := range ds.Operators {
		if operators[o.ID] {
			bad("operators[%d]: duplicate id %d", i, o.ID)
		}
		operators[o.ID] = true
		for _, p := range o.Prefixes {
			if !prefixPattern.MatchString(p) {
				bad("operators[%d] (id %d): prefix %q is not 08 and two digits", i, o.ID, p)
			}
			if other, dup := prefixes[p]; dup {
				bad("operators[%d] (id %d): prefix %q already belongs to operator %d", i, o.ID, p, other)
			}
			prefixes[p] = o.ID
		}
	}
	subs := map[string]bool{}
	for i, s := range ds.SubCategories {
		if s.Code == "" {
			bad("sub_categories[%d]: code is required", i)
		}
		if subs[s.Code] {
			bad("sub_categories[%d]: duplicate code %q", i, s.Code)
		}
		subs[s.Code] = true
	}
	products := map[int64]bool{}
	promos := map[int64]bool{}
	for i, p := range ds.Products {
		if p.ID <= 0 {
			bad("products[%d]: id must be positive", i)
		}
		if products[p.ID] {
			bad("products[%d]: duplicate id %d", i, p.ID)
		}
		products[p.ID] = true
		if !operators[p.OperatorID] {
			bad("products[%d] (id %d): unknown operator %d", i, p.ID, p.OperatorID)
		}
		if !subs[p.SubCategory] {
			bad("products[%d] (id %d): unknown sub_category %q", i, p.ID, p.SubCategory)
		}
		if p.Status != ProductActive && p.Status != ProductInactive {
			bad("products[%d] (id %d): status %q is not active or inactive", i, p.ID, p.Status)
		}
		if p.BasePrice <= 0 {
			bad("products[%d] (id %d): base_price must be positive", i, p.ID)
		}
		if p.Promotion != nil {
			if promos[p.Promotion.ID] {
				bad("products[%d] (id %d): duplicate promotion id %d", i, p.ID, p.Promotion.ID)
			}
			promos[p.Promotion.ID] = true
			if p.Promotion.Discount < 0 || p.Promotion.Discount >= p.BasePrice {
				bad("products[%d] (id %d): promotion discount must be between 0 and base_price", i, p.ID)
			}
		}
	}
	methods := map[int64]bool{}
	for i, m := range ds.PaymentMethods {
		if m.ID <= 0 {
			bad("payment_methods[%d]: id must be positive (0 is the internal balance/coin method)", i)
		}
		if methods[m.ID] {
			bad("payment_methods[%d]: duplicate id %d", i, m.ID)
		}
		methods[m.ID] = true
		if m.MinimumPayment < 0 || m.FeeAmount < 0 {
			bad("payment_methods[%d] (id %d): minimum_payment and fee_amount must not be negative", i, m.ID)
		}
	}
	txIDs := map[int64]bool{}
	trxIDs := map[partnerKey]bool{}
	numbers := map[string]bool{}
	for i, t := range ds.Transactions {
		if t.ID <= 0 || txIDs[t.ID] {
			bad("transactions[%d]: id %d must be positive and unique", i, t.ID)
		}
		txIDs[t.ID] = true
		if t.PaymentFormed {
			bad("transactions[%d] (id %d): only transactions whose payment was never formed can be seeded", i, t.ID)
		}
		if !partners[t.Partner] {
			bad("transactions[%d] (id %d): unknown partner %d", i, t.ID, t.Partner)
		}
		if a, ok := accounts[t.Account]; !ok || a.Partner != t.Partner {
			bad("transactions[%d] (id %d): account %d is not an account of partner %d", i, t.ID, t.Account, t.Partner)
		}
		if !products[t.Product] {
			bad("transactions[%d] (id %d): unknown product %d", i, t.ID, t.Product)
		}
		k := partnerKey{t.Partner, t.PartnerTrxID}
		if t.PartnerTrxID == "" || trxIDs[k] {
			bad("transactions[%d] (id %d): partner_trx_id %q must be set and unique per partner", i, t.ID, t.PartnerTrxID)
		}
		trxIDs[k] = true
		if m := trxNumberSeq.FindStringSubmatch(t.TransactionNumber); m == nil || m[1] != fmt.Sprint(t.Partner) {
			bad("transactions[%d] (id %d): transaction_number %q is not INV/YYYYMMDD/P%d/NNNNNNNN", i, t.ID, t.TransactionNumber, t.Partner)
		}
		if numbers[t.TransactionNumber] {
			bad("transactions[%d] (id %d): duplicate transaction_number %q", i, t.ID, t.TransactionNumber)
		}
		numbers[t.TransactionNumber] = true
		if _, err := parseDateTime(t.CreatedAt); err != nil {
			bad("transactions[%d] (id %d): created_at %q is not YYYY-MM-DD HH:MM:SS", i, t.ID, t.CreatedAt)
		}
	}
	return errors.Join(errs...)
}
