package generative

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
)

// subCategories are the sub category codes of the document's table (4.1).
var subCategories = contract.SubCategories()

type product struct {
	ID       int64
	Active   bool
	Operator string
	Price    int64
}

// method is a gateway payment method of the list: the internal
// balance/coin method, which the list may include, is never one.
type method struct {
	ID, Min, Fee int64
}

// account is a customer account the run may use.
type account struct {
	Label  string // how reproductions name it
	Token  string
	ID     int64
	Phone  string
	Name   string
	Email  string
	Funded bool
	// MinBalance and MinCoins are what the run leaves on a shared account.
	MinBalance, MinCoins int64
}

// wallet is an account's balance and coins.
type wallet struct{ Balance, Coins int64 }

// trxRef is a transaction created by the run.
type trxRef struct {
	TrxID, Number string
}

// world is what the properties of one run share: the client, the profile,
// what the live API told the run, and fresh-id counters.
type world struct {
	ctx  context.Context
	seed uint64
	c    *client
	prof *profiles.Profile
	// profilePath and conn are how a reproduction names the profile and
	// reaches the target (Options.ProfilePath, Options.Conn).
	profilePath string
	conn        transport.Options
	runID       string
	seq         atomic.Int64
	products    []product
	methods     []method
	maxPrice    int64
	cashier     *account
	funded      *account
	// split and mixed are the profile's split-payment and mixed-payment
	// customers, or nil: their wallets are short of some price, so they
	// make the sequences' mixed payments.
	split, mixed *account

	mu   sync.Mutex
	trxs []trxRef

	phoneMu    sync.Mutex
	phoneBlock string
	phoneCount int
}

func newRunID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(100000))
	if err != nil {
		return "00000"
	}
	return fmt.Sprintf("%05d", n.Int64())
}

// next returns a number unique in the run.
func (w *world) next() int64 { return w.seq.Add(1) }

// uniquePhone is a real-looking number no other run uses: an operator
// prefix, a random block of five digits and a counter of four (13 digits);
// a new block is drawn every 10,000 numbers.
func (w *world) uniquePhone() string {
	w.phoneMu.Lock()
	defer w.phoneMu.Unlock()
	if w.phoneBlock == "" || w.phoneCount == 10000 {
		w.phoneBlock, w.phoneCount = newRunID(), 0
	}
	n := w.phoneCount
	w.phoneCount++
	prefixes := contract.AllPrefixes()
	return fmt.Sprintf("%s%s%04d", prefixes[n%len(prefixes)], w.phoneBlock, n)
}

func (w *world) uniqueEmail() string {
	return fmt.Sprintf("kasir.gen%s.%d@tokocontoh.co.id", w.runID, w.next())
}

func (w *world) uniqueTrxID() string { return fmt.Sprintf("gen-%s-%d", w.runID, w.next()) }

// freshTrxID is a partner_trx_id never used, sometimes as long as the
// schema allows, in multi-byte characters.
func (w *world) freshTrxID(t *rapid.T, s *openapi3.Schema) any {
	id := w.uniqueTrxID()
	if s.MaxLength != nil && rapid.Bool().Draw(t, "longest partner_trx_id?") {
		return overLong(id, int(*s.MaxLength))
	}
	return id
}

func (w *world) addTrx(r trxRef) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.trxs = append(w.trxs, r)
}

func (w *world) knownTrxs() []trxRef {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]trxRef(nil), w.trxs...)
}

// msisdnFor draws a destination number that fits the operator.
func msisdnFor(t *rapid.T, operator string) string {
	p := rapid.SampledFrom(contract.PrefixesOrDefault(operator)).Draw(t, "prefix")
	return p + rapid.StringOfN(rapid.RuneFrom([]rune("0123456789")), 8, 8, -1).Draw(t, "digits")
}

// get sends an authenticated GET.
func (w *world) get(path, query, token string) answer {
	return w.c.do(w.ctx, request{Method: http.MethodGet, Path: path, Query: query, Secret: w.prof.SecretKey, Token: token})
}

// setup learns the catalog and the methods, provisions the run's cashier
// and reads the funded, split-payment and mixed-payment customers the
// profile has.
func (w *world) setup() error {
	for _, sub := range subCategories {
		for page := 1; page <= 20; page++ {
			a := w.get("/client/v2/product/sync", encodeQuery([][2]string{{"sub_category", sub}, {"page", fmt.Sprint(page)}, {"pageSize", "100"}}), w.prof.MainToken)
			if a.Err != nil {
				return fmt.Errorf("reading the %s catalog: %w", sub, a.Err)
			}
			body := decode(a.Body)
			list, _ := dig(body, "data", "products").([]any)
			for _, it := range list {
				p, _ := it.(map[string]any)
				w.products = append(w.products, product{
					ID: integer(dig(p, "id")), Active: dig(p, "status") == "active",
					Operator: str(dig(p, "operator", "name")), Price: integer(dig(p, "pricing", "final_price")),
				})
			}
			if len(list) == 0 || integer(dig(body, "pagination", "totalPages")) <= int64(page) {
				break
			}
		}
	}
	for _, p := range w.products {
		w.maxPrice = max(w.maxPrice, p.Price)
	}
	acc, err := w.provision("the cashier")
	if err != nil {
		return err
	}
	w.cashier = acc
	a := w.get("/client/v2/payment/methods", "", acc.Token)
	list, _ := dig(decode(a.Body), "data").([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		id := integer(dig(m, "id"))
		if !contract.IsGatewayMethod(id, str(dig(m, "payment_gateway")), str(dig(m, "payment_type"))) {
			continue
		}
		w.methods = append(w.methods, method{ID: id, Min: integer(dig(m, "minimum_payment")), Fee: integer(dig(m, "service_fee", "amount"))})
	}
	if w.funded, err = w.customer("the funded customer", w.prof.FundedCustomer); err != nil {
		return err
	}
	if w.funded != nil {
		w.funded.Funded = true
	}
	if w.split, err = w.customer("the split-payment customer", w.prof.SplitCustomer); err != nil {
		return err
	}
	w.mixed, err = w.customer("the mixed-payment customer", w.prof.MixedCustomer)
	return err
}

// customer reads the profile of a customer the profile names (nil when it
// names none), as the account labelled label.
func (w *world) customer(label string, c *profiles.Customer) (*account, error) {
	if c == nil || c.Token == "" {
		return nil, nil
	}
	a := w.get("/client/v2/customer/profile", "", c.Token)
	if a.Status != http.StatusOK {
		return nil, fmt.Errorf("reading %s's profile: status %d", label, a.Status)
	}
	d := dig(decode(a.Body), "data", "customer")
	return &account{Label: label, Token: c.Token, ID: integer(dig(d, "id")),
		Phone: str(dig(d, "phone_number")), Name: str(dig(d, "name")), Email: str(dig(d, "email")),
		MinBalance: c.MinBalance, MinCoins: c.MinCoins}, nil
}

// provision creates a new cashier account of the partner.
func (w *world) provision(label string) (*account, error) {
	acc := &account{Label: label, Phone: w.uniquePhone(), Email: w.uniqueEmail(), Name: "Kasir Generasi " + w.runID}
	a := w.c.do(w.ctx, request{Method: http.MethodPost, Path: repro.PathProvision, Secret: w.prof.SecretKey, ContentType: "application/json", Body: acc.provisioning()})
	if a.Err != nil {
		return nil, fmt.Errorf("provisioning a cashier: %w", a.Err)
	}
	if a.Status/100 != 2 {
		return nil, fmt.Errorf("provisioning a cashier: status %d %s", a.Status, a.Body)
	}
	d := dig(decode(a.Body), "data")
	acc.Token, acc.ID = str(dig(d, "token")), integer(dig(d, "customer_id"))
	return acc, nil
}

// provisioning is the body that provisions a: its name, phone number and
// email (§4.4), which provision it again.
func (a *account) provisioning() []byte {
	body, _ := json.Marshal(map[string]string{"name": a.Name, "phone_number": a.Phone, "email": a.Email}) // strings always marshal
	return body
}

// walletOf reads an account's wallet; ok is false when the profile is not 200.
func (w *world) walletOf(token string) (wallet, answer, bool) {
	a := w.get("/client/v2/customer/profile", "", token)
	if a.Err != nil || a.Status != http.StatusOK {
		return wallet{}, a, false
	}
	d := dig(decode(a.Body), "data")
	return wallet{Balance: integer(dig(d, "balance", "available")), Coins: integer(dig(d, "coin", "available"))}, a, true
}

// fitting returns the gateway methods whose minimum_payment the price
// reaches: a payment of that price through one of them, balance and coins
// off, is payable.
func (w *world) fitting(price int64) []method {
	var out []method
	for _, m := range w.methods {
		if m.Min <= price {
			out = append(out, m)
		}
	}
	return out
}

// fee is the service fee of gateway method id (0 for any other id).
func (w *world) fee(id int64) int64 {
	for _, m := range w.methods {
		if m.ID == id {
			return m.Fee
		}
	}
	return 0
}

// spendable reports whether acc may pay up to price without going below
// its reserve (min_balance and min_coins of the profile).
func (acc *account) spendable(wl wallet, price int64) bool {
	if !acc.Funded {
		return true
	}
	return wl.Balance-price >= acc.MinBalance && wl.Coins-2*price >= acc.MinCoins
}

// hints are the fields whose values come from the live API or must be fresh.
func (w *world) hints() map[string]hint {
	h := map[string]hint{
		"phone_number": {always: true, draw: func(*rapid.T, *openapi3.Schema) any { return w.uniquePhone() }},
		"email":        {always: true, draw: func(*rapid.T, *openapi3.Schema) any { return w.uniqueEmail() }},
		"sub_category": {draw: func(t *rapid.T, _ *openapi3.Schema) any {
			return rapid.SampledFrom(subCategories).Draw(t, "sub_category")
		}},
		"partner_trx_id": {always: true, draw: func(t *rapid.T, s *openapi3.Schema) any {
			if known := w.knownTrxs(); len(known) > 0 && rapid.IntRange(0, 4).Draw(t, "reuse a partner_trx_id?") == 0 {
				return rapid.SampledFrom(known).Draw(t, "known transaction").TrxID
			}
			return w.freshTrxID(t, s)
		}, payable: w.freshTrxID},
		"transaction_number": {draw: func(t *rapid.T, _ *openapi3.Schema) any {
			if known := w.knownTrxs(); len(known) > 0 {
				return rapid.SampledFrom(known).Draw(t, "known transaction").Number
			}
			return "INV/00000000/P0/00000000"
		}},
	}
	if len(w.products) > 0 {
		// Products are drawn by status first, so that the few inactive
		// products are drawn as often as the active ones (every value of
		// the status enum).
		byStatus := map[bool][]product{}
		for _, p := range w.products {
			byStatus[p.Active] = append(byStatus[p.Active], p)
		}
		var groups [][]product
		for _, active := range []bool{true, false} {
			if len(byStatus[active]) > 0 {
				groups = append(groups, byStatus[active])
			}
		}
		h["product_id"] = hint{draw: func(t *rapid.T, _ *openapi3.Schema) any {
			group := groups[rapid.IntRange(0, len(groups)-1).Draw(t, "product status")]
			return rapid.SampledFrom(group).Draw(t, "product").ID
		}, payable: func(t *rapid.T, _ *openapi3.Schema) any {
			return rapid.SampledFrom(groups[0]).Draw(t, "product").ID
		}}
		h["msisdn"] = hint{draw: func(t *rapid.T, _ *openapi3.Schema) any {
			return msisdnFor(t, rapid.SampledFrom(w.products).Draw(t, "operator of").Operator)
		}}
	}
	ids := []int64{contract.InternalMethodID}
	for _, m := range w.methods {
		ids = append(ids, m.ID)
	}
	h["payment_method_id"] = hint{draw: func(t *rapid.T, _ *openapi3.Schema) any { return rapid.SampledFrom(ids).Draw(t, "payment_method_id") }}
	return h
}

// decode reads a JSON object with numbers kept exact; anything else is nil.
func decode(b []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

// dig follows keys through nested objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// integer reads a JSON number (decoded with UseNumber) as an int64
// (contract.Int64), 0 for anything else or a number out of range.
func integer(v any) int64 {
	if n, ok := contract.Int64(v); ok {
		return n
	}
	return 0
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
