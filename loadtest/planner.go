package loadtest

import (
	"errors"
	"sort"
	"sync"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// job is one request to send: its call and, for a payment creation, its
// ledger entry, which the worker fills in.
type job struct {
	seq  uint64
	call call
	pay  *record.Payment
	// wave links the requests of an idempotency wave.
	wave bool
	// wallet is the budget the payment reserved from; nil when none.
	wallet *budget
}

// planner turns hit numbers into jobs for one scenario: it holds what the
// scenarios build requests from (ids, accounts, catalog, mixes).
type planner struct {
	keepIDs  bool // the created ids are kept for status reads (remember)
	cl       *client
	ids      idSource
	shard    record.Shard
	accounts []Account
	mix      Weights
	ops      Weights
	kinds    picker // of mix
	opPicker picker // of ops
	waveSize int

	products []record.Product // for balance and coins
	byPrice  []record.Product // products by maxPrice, for budgets
	whenDry  string           // DryContinue, DryGateway or DryStop
	dry      chan struct{}    // closed when an account runs dry under DryStop
	dryOnce  sync.Once
	gateway  map[int64][]record.Product // method id → products it can take
	methods  []record.Method            // gateway methods with at least one product
	subCats  []string
	// prefixes are the destination prefixes of each product's operator,
	// found once here rather than by name on every payment.
	prefixes map[string][]string

	mu     sync.Mutex
	recent []recentID // ring of created ids for status look-ups
	next   int
}

type recentID struct {
	id   string
	auth string
}

const recentSize = 1024

func newPlanner(keepIDs bool, cl *client, ids idSource, sh record.Shard, accounts []Account, cat *record.Catalog, mix, ops Weights, waveSize int) (*planner, error) {
	p := &planner{keepIDs: keepIDs, cl: cl, ids: ids, shard: sh, accounts: accounts, mix: Weights{}, ops: ops,
		waveSize: waveSize, products: cat.Products, gateway: map[int64][]record.Product{}, subCats: cat.SubCategories}
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
		if k == record.KindGateway && len(p.methods) == 0 {
			continue
		}
		if k != record.KindGateway && !funded {
			continue
		}
		p.mix[k] = v
	}
	if p.mix.total() == 0 {
		switch {
		case !funded:
			return nil, errors.New("scenario: the accounts are unfunded (no load_customers in the profile; the accounts the conformance profile reserves for its scenarios are never spent), so only gateway payments are possible; give the gateway kind a weight in --mix")
		default:
			return nil, errors.New("scenario: no payment kind of the mix is possible on this target (no gateway method takes any product)")
		}
	}
	if len(accounts) == 0 {
		return nil, errors.New("scenario: no account to pay with")
	}
	p.kinds, p.opPicker = p.mix.picker(kindOrder), ops.picker(opOrder)
	p.byPrice = append([]record.Product(nil), cat.Products...)
	sort.SliceStable(p.byPrice, func(i, j int) bool { return p.byPrice[i].MaxPrice() < p.byPrice[j].MaxPrice() })
	p.whenDry, p.dry = record.DryContinue, make(chan struct{})
	p.prefixes = map[string][]string{}
	for _, pr := range cat.Products {
		p.prefixes[pr.Operator] = contract.PrefixesOrDefault(pr.Operator)
	}
	return p, nil
}

// mixedOp is the operation of the mixed scenario's hit n, by its weights.
func (p *planner) mixedOp(n uint64) string { return p.opPicker.pick(mix64(n ^ 0x9e3779b97f4a7c15)) }

// waveJobs appends the requests of a wave for hit n: waveSize requests of
// one partner_trx_id and one body, which share the hit's sequence number.
// A wave pays once per id: it is not held to the budgets.
func (p *planner) waveJobs(n uint64, buf []job) []job {
	acct := p.accounts[n%uint64(len(p.accounts))]
	c, pay, _ := p.create(n, p.ids.ID(n), acct, false)
	pay.Wave = p.waveSize
	for range p.waveSize {
		pc := *pay
		buf = append(buf, job{seq: n, call: c, pay: &pc, wave: true})
	}
	return buf
}

// createJob returns the job of a payment creation for hit n, with its own id.
func (p *planner) createJob(n uint64) job {
	acct := p.accounts[n%uint64(len(p.accounts))]
	c, pay, w := p.create(n, p.ids.ID(n), acct, true)
	return job{seq: n, call: c, pay: pay, wallet: w}
}

// create builds a create-payment call for id with acct. With budgeted, a
// balance or coin payment is for a product the account can still afford,
// and reserves its price from the account's budget, returned; when it can
// afford none, the planner's --when-dry rule applies.
func (p *planner) create(n uint64, id string, acct Account, budgeted bool) (call, *record.Payment, *budget) {
	h := mix64(n)
	kind := record.KindGateway
	if acct.Funded {
		kind = p.kinds.pick(h)
	}
	var (
		afforded record.Product
		reserved *budget
	)
	if kind != record.KindGateway && budgeted && acct.wallet != nil {
		var ok bool
		if afforded, ok = acct.wallet.reserve(kind, p.byPrice, h>>40); ok {
			reserved = acct.wallet
		} else {
			switch {
			case p.whenDry == record.DryGateway && len(p.methods) > 0:
				kind = record.KindGateway
			case p.whenDry == record.DryStop:
				p.dryOnce.Do(func() { close(p.dry) })
			}
		}
	}
	var (
		pr       record.Product
		methodID int64
		body     = payment{partnerTrxID: id}
		pay      = &record.Payment{ID: id, Seq: n, Shard: p.shard.Index, Account: acct.Key, Kind: kind}
	)
	switch kind {
	case record.KindGateway:
		m := p.methods[int((h>>20)%uint64(len(p.methods)))]
		prs := p.gateway[m.ID]
		pr = prs[int((h>>40)%uint64(len(prs)))]
		methodID = m.ID
	case record.KindCoins:
		pr = p.products[int((h>>40)%uint64(len(p.products)))]
		if reserved != nil {
			pr = afforded
		}
		body.useCoin = true
		pay.MaxCoins = contract.CoinsFor(pr.MaxPrice())
	default:
		pr = p.products[int((h>>40)%uint64(len(p.products)))]
		if reserved != nil {
			pr = afforded
		}
		body.useBalance = true
		pay.MaxBalance = pr.MaxPrice()
	}
	body.methodID = methodID
	body.productID = pr.ID
	body.msisdn = prefixedNumber(p.prefixes[pr.Operator], h)
	pay.ProductID, pay.MethodID = pr.ID, methodID
	return p.cl.createPayment(acct.auth, body), pay, reserved
}

// remember notes a created id for later status look-ups.
func (p *planner) remember(id, auth string) {
	if !p.keepIDs {
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
