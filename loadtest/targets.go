package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/profiles"
)

// The API paths the load tester uses (document §4).
const (
	pathList    = "/client/v2/product/list"
	pathSync    = "/client/v2/product/sync"
	pathProfile = "/client/v2/customer/profile"
	pathProv    = "/client/v2/customer/provision_account"
	pathMethods = "/client/v2/payment/methods"
	pathPayment = "/client/v2/payment"
	pathStatus  = "/client/v2/payment/status"
)

// DefaultSubCategories are the sub category codes the document lists (§4.1).
var DefaultSubCategories = []string{"prabayar", "paket-data", "paket-sms"}

// maxBodyBytes bounds every response body the load tester reads.
const maxBodyBytes = 1 << 20

// Target is one server under test: where it is, its credentials, and the
// HTTP client the run uses. It is built from a target profile.
type Target struct {
	base      string
	secretKey string
	mainAuth  string // Authorization header of the main partner account
	client    *http.Client
	timeout   time.Duration
}

// newTarget returns a Target for profile p with a client capped at maxConns
// connections.
func newTarget(p *profiles.Profile, maxConns int, timeout time.Duration) (*Target, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tr := &http.Transport{
		Proxy:               nil, // load is sent to the target, never through a proxy
		DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxConnsPerHost:     maxConns,
		MaxIdleConns:        maxConns,
		MaxIdleConnsPerHost: maxConns,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSHandshakeTimeout: timeout,
	}
	return &Target{
		base:      strings.TrimRight(p.BaseURL, "/"),
		secretKey: p.SecretKey,
		mainAuth:  bearer(p.MainToken),
		client:    &http.Client{Transport: tr, CheckRedirect: noRedirects},
		timeout:   timeout,
	}, nil
}

// bearer returns the Authorization header value of token; "" (no header)
// for no token.
func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// close releases the target's idle connections.
func (t *Target) close() { t.client.CloseIdleConnections() }

// call is one HTTP request of the run, before it is sent.
type call struct {
	op     string
	method string
	url    string
	auth   string // Authorization header value; empty for provision
	body   []byte
}

func (t *Target) get(op, path, auth string, q url.Values) call {
	u := t.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return call{op: op, method: http.MethodGet, url: u, auth: auth}
}

func (t *Target) post(op, path, auth string, body []byte) call {
	return call{op: op, method: http.MethodPost, url: t.base + path, auth: auth, body: body}
}

// response is what came back for a call.
type response struct {
	code  int
	body  []byte
	bytes uint64
	err   error // transport error or timeout: no response
}

// do sends c under ctx and reads the whole (bounded) body.
func (t *Target) do(ctx context.Context, c call) response {
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, body)
	if err != nil {
		return response{err: err}
	}
	req.Header.Set("X-SECRET-KEY", t.secretKey)
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return response{code: resp.StatusCode, err: err}
	}
	return response{code: resp.StatusCode, body: b, bytes: uint64(len(b))}
}

// doTimed is do with the target's per-request timeout.
func (t *Target) doTimed(ctx context.Context, c call) response {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.do(ctx, c)
}

// errorText shortens a transport error: the URL (which may hold an id) is
// dropped so that vegeta's list of distinct errors stays short.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if errors.Is(err, context.Canceled) {
		return "canceled"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return "timeout"
		}
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// Product is an active product of the target's catalog.
type Product struct {
	ID          int64  `json:"id"`
	SubCategory string `json:"sub_category"`
	BasePrice   int64  `json:"base_price"`
	FinalPrice  int64  `json:"final_price"`
}

// Method is a gateway payment method of the target.
type Method struct {
	ID             int64 `json:"id"`
	MinimumPayment int64 `json:"minimum_payment"`
}

// Catalog is what the load tester learns about the target before a run:
// the active products (through sync with the main token), the active sub
// categories, and the gateway payment methods.
type Catalog struct {
	Products      []Product `json:"products"`
	SubCategories []string  `json:"sub_categories"`
	Methods       []Method  `json:"methods"`
}

// maxPrice is the highest price a payment for p can be charged: the
// recalculated value is not known in advance, so both prices bound it.
func (p Product) maxPrice() int64 { return max(p.BasePrice, p.FinalPrice) }

type syncEnvelope struct {
	Status  bool   `json:"status"`
	Message string `json:"message"`
	Data    *struct {
		Products []struct {
			ID      int64 `json:"id"`
			Pricing struct {
				BasePrice  int64 `json:"base_price"`
				FinalPrice int64 `json:"final_price"`
			} `json:"pricing"`
			Status string `json:"status"`
		} `json:"products"`
	} `json:"data"`
	Pagination *struct {
		Page       int64 `json:"page"`
		TotalPages int64 `json:"totalPages"`
	} `json:"pagination"`
}

type methodsEnvelope struct {
	Status bool `json:"status"`
	Data   []struct {
		ID             int64 `json:"id"`
		MinimumPayment int64 `json:"minimum_payment"`
	} `json:"data"`
}

// maxSyncPages bounds catalog discovery.
const maxSyncPages = 1000

// discover reads the catalog. exclude lists product ids never to buy (for
// example the profile's unprocessable product). token is a customer token
// for the methods call.
func (t *Target) discover(ctx context.Context, subCategories []string, exclude map[int64]bool, auth string) (*Catalog, error) {
	cat := &Catalog{}
	for _, sc := range subCategories {
		found := false
		for page := int64(1); page <= maxSyncPages; page++ {
			q := url.Values{"sub_category": {sc}, "page": {strconv.FormatInt(page, 10)}, "pageSize": {"100"}}
			r := t.doTimed(ctx, t.get(OpSync, pathSync, t.mainAuth, q))
			if r.err != nil {
				return nil, fmt.Errorf("catalog: sync %s: %w", sc, r.err)
			}
			if r.code != http.StatusOK {
				return nil, fmt.Errorf("catalog: sync %s page %d: HTTP %d: %.200s", sc, page, r.code, r.body)
			}
			var env syncEnvelope
			if err := json.Unmarshal(r.body, &env); err != nil {
				return nil, fmt.Errorf("catalog: sync %s: %w", sc, err)
			}
			if env.Data == nil || env.Pagination == nil {
				break // "Subkategori tidak ditemukan." or "belum tersedia."
			}
			found = true
			for _, p := range env.Data.Products {
				if p.Status != "active" || exclude[p.ID] || p.Pricing.FinalPrice <= 0 {
					continue
				}
				cat.Products = append(cat.Products, Product{ID: p.ID, SubCategory: sc,
					BasePrice: p.Pricing.BasePrice, FinalPrice: p.Pricing.FinalPrice})
			}
			if page >= env.Pagination.TotalPages {
				break
			}
		}
		if found {
			cat.SubCategories = append(cat.SubCategories, sc)
		}
	}
	if len(cat.Products) == 0 {
		return nil, errors.New("catalog: the target's sync lists no active product")
	}
	r := t.doTimed(ctx, t.get(OpMethods, pathMethods, auth, nil))
	if r.err != nil {
		return nil, fmt.Errorf("catalog: payment methods: %w", r.err)
	}
	if r.code != http.StatusOK {
		return nil, fmt.Errorf("catalog: payment methods: HTTP %d: %.200s", r.code, r.body)
	}
	var me methodsEnvelope
	if err := json.Unmarshal(r.body, &me); err != nil {
		return nil, fmt.Errorf("catalog: payment methods: %w", err)
	}
	for _, m := range me.Data {
		if m.ID != 0 {
			cat.Methods = append(cat.Methods, Method{ID: m.ID, MinimumPayment: m.MinimumPayment})
		}
	}
	return cat, nil
}

// Account is a customer account the run pays with.
type Account struct {
	// Key names the account in ledgers and reports without its token:
	// "load_customers[2]", "funded_customer" or "provisioned:<phone>".
	Key    string `json:"key"`
	auth   string // Authorization header value, built once: "Bearer <token>"
	Funded bool   `json:"funded"`
	// Shared is true when other shards pay with the same account, so that
	// only a merge of all shards can reconcile it.
	Shared bool `json:"shared"`
}

// partitionAccounts picks shard s's accounts from the profile: its share of
// load_customers, else the funded customer; nil when neither exists.
func partitionAccounts(p *profiles.Profile, s Shard) []Account {
	var all []Account
	for i, c := range p.LoadCustomers {
		all = append(all, Account{Key: fmt.Sprintf("load_customers[%d]", i), auth: bearer(c.Token), Funded: true})
	}
	if len(all) == 0 && p.FundedCustomer != nil && p.FundedCustomer.Token != "" {
		all = append(all, Account{Key: "funded_customer", auth: bearer(p.FundedCustomer.Token), Funded: true})
	}
	if len(all) == 0 {
		return nil
	}
	if len(all) >= s.Count {
		var mine []Account
		for i, a := range all {
			if i%s.Count == s.Index {
				mine = append(mine, a)
			}
		}
		return mine
	}
	a := all[s.Index%len(all)]
	a.Shared = true
	return []Account{a}
}

type provisionEnvelope struct {
	Status bool `json:"status"`
	Data   struct {
		Token string `json:"token"`
	} `json:"data"`
}

// provision creates n unfunded accounts of shard s of run.
func (t *Target) provision(ctx context.Context, run string, s Shard, n int) ([]Account, error) {
	var out []Account
	for k := range n {
		// 08 + 10 digits: a hash of run and shard, then k.
		h := fnv64(run + "/" + s.String())
		phone := fmt.Sprintf("089%07d%02d", h%10_000_000, k%100)
		device := "loadtest"
		body, _ := json.Marshal(api.ProvisionAccountRequest{
			Name:        fmt.Sprintf("Load %s %d %d", run, s.Index, k),
			PhoneNumber: phone,
			Email:       fmt.Sprintf("load-%s-%d-%d@loadtest.invalid", run, s.Index, k),
			DeviceId:    &device,
		})
		r := t.doTimed(ctx, t.post(OpProvision, pathProv, "", body))
		if r.err != nil {
			return nil, fmt.Errorf("provision: %w", r.err)
		}
		if r.code != http.StatusOK && r.code != http.StatusCreated {
			return nil, fmt.Errorf("provision: HTTP %d: %.200s", r.code, r.body)
		}
		var env provisionEnvelope
		if err := json.Unmarshal(r.body, &env); err != nil || env.Data.Token == "" {
			return nil, fmt.Errorf("provision: no token in %.200s", r.body)
		}
		out = append(out, Account{Key: "provisioned:" + phone, auth: bearer(env.Data.Token)})
	}
	return out, nil
}

type profileEnvelope struct {
	Data struct {
		Balance struct {
			Available int64 `json:"available"`
		} `json:"balance"`
		Coin struct {
			Available int64 `json:"available"`
		} `json:"coin"`
	} `json:"data"`
}

// Wallet is an account's balance (rupiah) and coins at one moment.
type Wallet struct {
	Balance int64     `json:"balance"`
	Coins   int64     `json:"coins"`
	At      time.Time `json:"at"`
}

// wallet reads the profile of token.
func (t *Target) wallet(ctx context.Context, auth string) (Wallet, error) {
	r := t.doTimed(ctx, t.get(OpProfile, pathProfile, auth, nil))
	if r.err != nil {
		return Wallet{}, fmt.Errorf("profile: %w", r.err)
	}
	if r.code != http.StatusOK {
		return Wallet{}, fmt.Errorf("profile: HTTP %d: %.200s", r.code, r.body)
	}
	var env profileEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		return Wallet{}, fmt.Errorf("profile: %w", err)
	}
	return Wallet{Balance: env.Data.Balance.Available, Coins: env.Data.Coin.Available, At: time.Now().UTC()}, nil
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
