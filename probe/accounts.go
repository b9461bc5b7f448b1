package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync/atomic"

	"github.com/partnercommerce/conformance/internal/contract"
)

// product is an active product of the catalog with a price.
type product struct {
	id       int64
	operator string
	price    int64
}

// payer is the account the probe pays from and how: the profile's funded
// customer from its wallet (method 0), or a cashier the probe provisioned
// through a gateway method.
type payer struct {
	// label names it in failures.
	label string
	token string
	// provision is the body the probe provisioned it with ("" for the
	// profile's funded customer): a reproduction provisions it again.
	provision []byte
	// method is the payment_method_id; 0 pays from the wallet.
	method int64
	// products are those it may pay for (through method, at least its
	// minimum_payment), the cheapest first.
	products []product
}

// fromWallet reports whether the payer pays from its wallet.
func (p *payer) fromWallet() bool { return p.method == contract.InternalMethodID }

// world is what the cases of a run share: the client, the draws, the
// catalog and fresh-id counters.
type world struct {
	c     *client
	opts  Options
	rng   *rand.Rand
	runID string
	seq   atomic.Int64

	catalog []product
	// funded is the funded customer as a payer, or nil; cashier the
	// provisioned one, made when a case needs it.
	funded, cashier *payer
	// cashierErr is why the cashier could not be made.
	cashierErr error
	// purses are what each case may still spend from the funded
	// customer's wallet (purse.go), made at the probe's first wave from
	// held, what the wallet held then.
	purses map[string]*purse
	held   contract.Wallet
	// made are the payments the probe's waves created (found.go).
	made []Known
}

// newRunID is five random digits, drawn apart from the seed: the ids of
// two runs with one seed differ.
func newRunID() string { return fmt.Sprintf("%05d", rand.IntN(100000)) }

// trxID is a partner_trx_id no run used before.
func (w *world) trxID() string { return fmt.Sprintf("probe-%s-%d", w.runID, w.seq.Add(1)) }

// msisdn draws a destination number of the product's operator.
func (w *world) msisdn(p product) string {
	prefixes := contract.PrefixesOrDefault(p.operator)
	return fmt.Sprintf("%s%08d", prefixes[w.rng.IntN(len(prefixes))], w.rng.IntN(100_000_000))
}

// readCatalog reads the first page of each sub category with the main
// token and keeps the active products with a price.
func (w *world) readCatalog(ctx context.Context) error {
	for _, sub := range contract.SubCategories() {
		q := url.Values{"sub_category": {sub}, "page": {"1"}, "pageSize": {"100"}}
		a := w.c.do(ctx, request{op: contract.OpSyncProducts, method: http.MethodGet, path: pathSync, query: q.Encode(), token: w.opts.Profile.MainToken})
		if err := answeredOK(a); err != nil {
			return fmt.Errorf("reading the %s catalog: %w", sub, err)
		}
		var page struct {
			Data struct {
				Products []struct {
					ID       json.Number `json:"id"`
					Status   string      `json:"status"`
					Operator struct {
						Name string `json:"name"`
					} `json:"operator"`
					Pricing struct {
						FinalPrice json.Number `json:"final_price"`
					} `json:"pricing"`
				} `json:"products"`
			} `json:"data"`
		}
		_ = contract.Unmarshal(a.body, &page) // a page that does not decode holds no product the probe can pay for
		for _, p := range page.Data.Products {
			id, err1 := p.ID.Int64()
			price, err2 := p.Pricing.FinalPrice.Int64()
			if err1 == nil && err2 == nil && p.Status == "active" && price > 0 {
				w.catalog = append(w.catalog, product{id: id, operator: p.Operator.Name, price: price})
			}
		}
	}
	if len(w.catalog) == 0 {
		return fmt.Errorf("the catalog (page 1 of %v, synchronized with the main token) shows no active product with a price", contract.SubCategories())
	}
	slices.SortFunc(w.catalog, func(a, b product) int { return int(a.price - b.price) })
	return nil
}

// cheapest is how many of the catalog's cheapest products the funded
// customer pays for: a run spends little of a real target's test wallet.
const cheapest = 5

// fundedPayer is the profile's funded customer, paying from its wallet for
// the catalog's cheapest products; nil when the profile names none.
func (w *world) fundedPayer() *payer {
	f := w.opts.Profile.FundedCustomer
	if f == nil || f.Token == "" {
		return nil
	}
	return &payer{label: "the funded customer", token: f.Token,
		method: contract.InternalMethodID, products: w.catalog[:min(cheapest, len(w.catalog))]}
}

// provisionCashier provisions a cashier of the partner for the probe alone
// and finds the gateway methods it can pay through: the products whose
// price reaches a method's minimum_payment.
func (w *world) provisionCashier(ctx context.Context) (*payer, error) {
	phone := fmt.Sprintf("%s%s%04d", contract.AllPrefixes()[0], w.runID, w.seq.Add(1)%10000)
	body, _ := json.Marshal(map[string]string{"name": "Kasir Probe " + w.runID, "phone_number": phone,
		"email": fmt.Sprintf("kasir.probe%s.%d@tokocontoh.co.id", w.runID, w.seq.Add(1))})
	a := w.c.do(ctx, request{op: contract.OpProvisionAccount, method: http.MethodPost, path: pathProvision, body: body})
	if a.err != nil || a.status/100 != 2 {
		return nil, fmt.Errorf("provisioning the probe's cashier: %w", answerError(a))
	}
	var pv struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if contract.Unmarshal(a.body, &pv) != nil || pv.Data.Token == "" {
		return nil, fmt.Errorf("provisioning the probe's cashier: the answer %d has no data.token", a.status)
	}
	m := w.c.do(ctx, request{op: contract.OpListPaymentMethods, method: http.MethodGet, path: pathMethods, token: pv.Data.Token})
	if err := answeredOK(m); err != nil {
		return nil, fmt.Errorf("listing the payment methods: %w", err)
	}
	var list struct {
		Data []struct {
			ID      json.Number `json:"id"`
			Gateway string      `json:"payment_gateway"`
			Type    string      `json:"payment_type"`
			Minimum json.Number `json:"minimum_payment"`
		} `json:"data"`
	}
	_ = contract.Unmarshal(m.body, &list) // a list that does not decode holds no method
	for _, me := range list.Data {
		id, err1 := me.ID.Int64()
		minimum, err2 := me.Minimum.Int64()
		if err1 != nil || err2 != nil || !contract.IsGatewayMethod(id, me.Gateway, me.Type) {
			continue
		}
		var fits []product
		for _, p := range w.catalog {
			if p.price >= minimum {
				fits = append(fits, p)
			}
		}
		if len(fits) > 0 {
			return &payer{label: "the probe's cashier", token: pv.Data.Token, provision: body, method: id, products: fits[:min(len(fits), cheapest)]}, nil
		}
	}
	return nil, errNoGateway
}

// errNoGateway is a target whose gateway methods no product reaches.
var errNoGateway = fmt.Errorf("no product of the catalog reaches the minimum_payment of a gateway method")

// answeredOK is nil for a 200 answer; otherwise what came instead.
func answeredOK(a answer) error {
	if a.err == nil && a.status == http.StatusOK {
		return nil
	}
	return answerError(a)
}

// answerError says what came back instead of the answer wanted.
func answerError(a answer) error {
	if a.err != nil {
		return a.err
	}
	if a.env.Message != "" {
		return fmt.Errorf("status %d %s", a.status, a.env.Message)
	}
	return fmt.Errorf("status %d", a.status)
}

// walletOf reads the payer's wallet through its profile.
func (w *world) walletOf(ctx context.Context, p *payer) (contract.Wallet, answer, error) {
	a := w.c.do(ctx, request{op: contract.OpGetCustomerProfile, method: http.MethodGet, path: pathProfile, token: p.token})
	if err := answeredOK(a); err != nil {
		return contract.Wallet{}, a, err
	}
	var pr struct {
		Data struct {
			Balance struct {
				Available json.Number `json:"available"`
			} `json:"balance"`
			Coin struct {
				Available json.Number `json:"available"`
			} `json:"coin"`
		} `json:"data"`
	}
	if err := contract.Unmarshal(a.body, &pr); err != nil {
		return contract.Wallet{}, a, fmt.Errorf("the profile does not decode: %w", err)
	}
	b, err1 := pr.Data.Balance.Available.Int64()
	c, err2 := pr.Data.Coin.Available.Int64()
	if err1 != nil || err2 != nil {
		return contract.Wallet{}, a, fmt.Errorf("the profile's balance.available %q and coin.available %q are not integers",
			pr.Data.Balance.Available, pr.Data.Coin.Available)
	}
	return contract.Wallet{Balance: b, Coins: c}, a, nil
}
