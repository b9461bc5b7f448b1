package loadtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/partnercommerce/conformance/api"
)

// The scenarios.
const (
	// ScenarioCreate is open-model payment creation, one unique
	// partner_trx_id per request.
	ScenarioCreate = "create"
	// ScenarioIdempotency sends waves of N concurrent requests with the same
	// partner_trx_id; the rate counts waves.
	ScenarioIdempotency = "idempotency"
	// ScenarioMixed mixes payment creation with status look-ups and product
	// list and sync reads.
	ScenarioMixed = "mixed"
)

// Scenarios lists the scenario names.
func Scenarios() []string { return []string{ScenarioCreate, ScenarioIdempotency, ScenarioMixed} }

// Weights is a set of named non-negative weights, written "a=3,b=1".
type Weights map[string]int

// maxWeight bounds each weight, so that the total cannot overflow.
const maxWeight = 1_000_000

// ParseWeights parses "name=weight,..." and checks every name is in allowed.
func ParseWeights(s string, allowed ...string) (Weights, error) {
	w := Weights{}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, found := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !found || err != nil || n < 0 || n > maxWeight {
			return nil, fmt.Errorf("weights %q: want name=integer from 0 to %d, got %q", s, maxWeight, part)
		}
		if !ok[k] {
			return nil, fmt.Errorf("weights %q: unknown name %q (want one of %s)", s, k, strings.Join(allowed, ", "))
		}
		w[k] = n
	}
	if w.total() == 0 {
		return nil, fmt.Errorf("weights %q: at least one weight must be above 0", s)
	}
	return w, nil
}

func (w Weights) total() int {
	t := 0
	for _, v := range w {
		t += v
	}
	return t
}

// String formats w in a stable order.
func (w Weights) String() string {
	var keys []string
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, w[k]))
	}
	return strings.Join(parts, ",")
}

// picker chooses names by weight; built once per run so that a choice
// neither ranges over a map nor sums the weights.
type picker struct {
	names []string
	cum   []int // cum[i]: the weights of names[0..i] added up
	total int   // every weight, names outside the order included
}

// picker returns the picker of w over the names in order, taken in that
// order so that the choice is deterministic.
func (w Weights) picker(order []string) picker {
	p := picker{total: w.total()}
	sum := 0
	for _, k := range order {
		sum += w[k]
		p.names = append(p.names, k)
		p.cum = append(p.cum, sum)
	}
	return p
}

// pick chooses a name by weight from a 64-bit value.
func (p picker) pick(x uint64) string {
	if p.total == 0 {
		return ""
	}
	r := int(x % uint64(p.total))
	for i, c := range p.cum {
		if r < c {
			return p.names[i]
		}
	}
	return ""
}

// DefaultPaymentMix and DefaultOpMix are the mixes used when none is given.
var (
	DefaultPaymentMix = Weights{KindBalance: 2, KindCoins: 1, KindGateway: 1}
	DefaultOpMix      = Weights{OpCreate: 60, OpStatus: 25, OpList: 10, OpSync: 5}
)

var (
	kindOrder = []string{KindBalance, KindCoins, KindGateway}
	opOrder   = []string{OpCreate, OpStatus, OpList, OpSync}
)

// job is one request to send: its call and, for a payment creation, its
// ledger entry, which the worker fills in.
type job struct {
	seq  uint64
	call call
	pay  *Payment
	// wave links the requests of an idempotency wave.
	wave bool
}

// planner turns hit numbers into jobs for one scenario.
type planner struct {
	name     string
	cl       *client
	ids      IDs
	shard    Shard
	accounts []Account
	mix      Weights
	ops      Weights
	kinds    picker // of mix
	opPicker picker // of ops
	waveSize int

	products []Product           // for balance and coins
	gateway  map[int64][]Product // method id → products it can take
	methods  []Method            // gateway methods with at least one product
	subCats  []string

	mu     sync.Mutex
	recent []recentID // ring of created ids for status look-ups
	next   int
}

type recentID struct {
	id   string
	auth string
}

const recentSize = 1024

func newPlanner(name string, cl *client, ids IDs, sh Shard, accounts []Account, cat *Catalog, mix, ops Weights, waveSize int) (*planner, error) {
	p := &planner{name: name, cl: cl, ids: ids, shard: sh, accounts: accounts, mix: Weights{}, ops: ops,
		waveSize: waveSize, products: cat.Products, gateway: map[int64][]Product{}, subCats: cat.SubCategories}
	for _, m := range cat.Methods {
		for _, pr := range cat.Products {
			if pr.FinalPrice >= m.MinimumPayment && pr.BasePrice >= m.MinimumPayment {
				p.gateway[m.ID] = append(p.gateway[m.ID], pr)
			}
		}
		if len(p.gateway[m.ID]) > 0 {
			p.methods = append(p.methods, m)
		}
	}
	funded := false
	for _, a := range accounts {
		funded = funded || a.Funded
	}
	for k, v := range mix {
		if k == KindGateway && len(p.methods) == 0 {
			continue
		}
		if k != KindGateway && !funded {
			continue
		}
		p.mix[k] = v
	}
	if p.mix.total() == 0 {
		switch {
		case !funded:
			return nil, errors.New("scenario: the accounts are unfunded (no load_customers or funded_customer in the profile), so only gateway payments are possible; give the gateway kind a weight in --mix")
		default:
			return nil, errors.New("scenario: no payment kind of the mix is possible on this target (no gateway method takes any product)")
		}
	}
	if len(accounts) == 0 {
		return nil, errors.New("scenario: no account to pay with")
	}
	if name == ScenarioIdempotency && waveSize < 2 {
		return nil, errors.New("scenario: idempotency waves need at least 2 requests")
	}
	p.kinds, p.opPicker = p.mix.picker(kindOrder), ops.picker(opOrder)
	return p, nil
}

// waves reports whether hit n is a wave of jobs (built by wave) rather
// than one job (built by single).
func (p *planner) waves() bool { return p.name == ScenarioIdempotency }

// wave returns the jobs of idempotency wave n: waveSize requests with one
// partner_trx_id and one body.
func (p *planner) wave(n uint64) []job {
	base := n * uint64(p.waveSize)
	id := p.ids.ID(base)
	acct := p.accounts[n%uint64(len(p.accounts))]
	c, pay := p.create(n, id, acct)
	jobs := make([]job, p.waveSize)
	for i := range jobs {
		pc := *pay
		pc.Seq = base + uint64(i)
		pc.Wave = p.waveSize
		jobs[i] = job{seq: pc.Seq, call: c, pay: &pc, wave: true}
	}
	return jobs
}

// single returns the job of hit n of the create and mixed scenarios. It
// depends only on n (and, for a status look-up, on the ids created so
// far), so any worker can build it.
func (p *planner) single(n uint64) job {
	if p.name == ScenarioMixed {
		switch p.opPicker.pick(mix64(n ^ 0x9e3779b97f4a7c15)) {
		case OpStatus:
			if r, ok := p.recentID(n); ok {
				q := url.Values{"partner_trx_id": {r.id}}
				return job{seq: n, call: p.cl.get(OpStatus, pathStatus, r.auth, q)}
			}
		case OpList:
			if len(p.subCats) > 0 {
				acct := p.accounts[n%uint64(len(p.accounts))]
				q := url.Values{"phone_number": {msisdn(n)}, "sub_category": {p.subCats[int(n)%len(p.subCats)]}}
				return job{seq: n, call: p.cl.get(OpList, pathList, acct.auth, q)}
			}
		case OpSync:
			if len(p.subCats) > 0 {
				q := url.Values{"sub_category": {p.subCats[int(n)%len(p.subCats)]},
					"page": {strconv.Itoa(1 + int(n%3))}, "pageSize": {"20"}}
				return job{seq: n, call: p.cl.get(OpSync, pathSync, p.cl.mainAuth, q)}
			}
		}
	}
	acct := p.accounts[n%uint64(len(p.accounts))]
	c, pay := p.create(n, p.ids.ID(n), acct)
	return job{seq: n, call: c, pay: pay}
}

// create builds a create-payment call for id with acct.
func (p *planner) create(n uint64, id string, acct Account) (call, *Payment) {
	h := mix64(n)
	kind := KindGateway
	if acct.Funded {
		kind = p.kinds.pick(h)
	}
	var (
		pr       Product
		methodID int64
		body     = api.CreatePaymentRequest{Msisdn: msisdn(n), PartnerTrxId: id}
		pay      = &Payment{ID: id, Seq: n, Shard: p.shard.Index, Account: acct.Key, Kind: kind}
	)
	yes := true
	switch kind {
	case KindGateway:
		m := p.methods[int((h>>20)%uint64(len(p.methods)))]
		prs := p.gateway[m.ID]
		pr = prs[int((h>>40)%uint64(len(prs)))]
		methodID = m.ID
	case KindCoins:
		pr = p.products[int((h>>40)%uint64(len(p.products)))]
		body.UseCoin = &yes
		pay.MaxCoins = 2 * pr.maxPrice()
	default:
		pr = p.products[int((h>>40)%uint64(len(p.products)))]
		body.UseBalance = &yes
		pay.MaxBalance = pr.maxPrice()
	}
	mid := methodID
	body.PaymentMethodId = &mid
	body.ProductId = pr.ID
	pay.ProductID, pay.MethodID = pr.ID, methodID
	b, _ := json.Marshal(body)
	return p.cl.post(OpCreate, pathPayment, acct.auth, b), pay
}

// remember notes a created id for later status look-ups.
func (p *planner) remember(id, auth string) {
	if p.name != ScenarioMixed {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.recent) < recentSize {
		p.recent = append(p.recent, recentID{id, auth})
		return
	}
	p.recent[p.next] = recentID{id, auth}
	p.next = (p.next + 1) % recentSize
}

func (p *planner) recentID(n uint64) (recentID, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.recent) == 0 {
		return recentID{}, false
	}
	return p.recent[int(mix64(n)%uint64(len(p.recent)))], true
}

// mix64 is splitmix64's finaliser: a cheap, well-spread hash of n.
func mix64(n uint64) uint64 {
	n += 0x9e3779b97f4a7c15
	n = (n ^ (n >> 30)) * 0xbf58476d1ce4e5b9
	n = (n ^ (n >> 27)) * 0x94d049bb133111eb
	return n ^ (n >> 31)
}
