package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
)

// Account is a customer account the run pays with.
type Account struct {
	// Key names the account in ledgers and reports without its token:
	// "load_customers[2]" or "provisioned:<phone>".
	Key  string `json:"key"`
	auth string // Authorization header value, built once: "Bearer <token>"
	// min is what the profile says the account holds at least
	// (min_balance, min_coins), used when its wallet cannot be read.
	minBalance, minCoins int64
	// wallet is what the account can still spend; nil when not known, and
	// then payments are not held to it.
	wallet *budget
	Funded bool `json:"funded"`
	// Shared is true when other shards pay with the same account, so that
	// only a merge of all shards can reconcile it.
	Shared bool `json:"shared"`
}

// partitionAccounts picks shard s's accounts from the profile: its share of
// load_customers; nil when the profile lists none. The accounts the profile
// reserves for the conformance scenarios (funded_customer, split_customer,
// ...) are never spent by a load test: without load customers the run
// provisions its own.
func partitionAccounts(p *profiles.Profile, s record.Shard) []Account {
	var all []Account
	for i, c := range p.LoadCustomers {
		all = append(all, Account{Key: fmt.Sprintf("load_customers[%d]", i), auth: bearer(c.Token), Funded: true,
			minBalance: c.MinBalance, minCoins: c.MinCoins})
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
func (cl *client) provision(ctx context.Context, run string, s record.Shard, n int) ([]Account, error) {
	var out []Account
	for k := range n {
		// 08 + 10 digits: a hash of run and shard, then k.
		h := fnv64(run + "/" + s.String())
		phone := fmt.Sprintf("089%07d%02d", h%10_000_000, k%100)
		device := "loadtest"
		body := api.ProvisionAccountRequest{
			Name:        fmt.Sprintf("Load %s %d %d", run, s.Index, k),
			PhoneNumber: phone,
			Email:       fmt.Sprintf("load-%s-%d-%d@loadtest.invalid", run, s.Index, k),
			DeviceId:    &device,
		}
		r := cl.doTimed(ctx, cl.provisionAccount(body))
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

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
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

// wallet reads the profile of token. patient waits out throttled answers
// (doTimed); otherwise a throttled answer is a read that failed.
func (cl *client) wallet(ctx context.Context, auth string, patient bool) (record.Wallet, error) {
	send := cl.doOnce
	if patient {
		send = cl.doTimed
	}
	r := send(ctx, cl.customerProfile(auth))
	defer r.release()
	if r.err == nil && r.gateway != nil {
		r.err = *r.gateway
	}
	if r.err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", r.err)
	}
	if r.code != http.StatusOK {
		return record.Wallet{}, fmt.Errorf("profile: HTTP %d: %.200s", r.code, r.body)
	}
	var env profileEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		return record.Wallet{}, fmt.Errorf("profile: %w", err)
	}
	return record.Wallet{Balance: env.Data.Balance.Available, Coins: env.Data.Coin.Available, At: time.Now().UTC()}, nil
}

// budget is what an account can still spend, as the run sees it: its
// wallet read before the run (or the profile's min_balance and min_coins),
// less what the payments sent so far may debit. A payment reserves its
// highest price when it is planned; the answer gives back what was not
// debited (everything, for a refusal). An unanswered payment keeps its
// reservation.
type budget struct {
	balance atomic.Int64 // rupiah
	coins   atomic.Int64 // coins
}

// reserve picks, by h, a product the account can pay for with kind and
// reserves its price; false when it can afford none. byPrice is sorted by
// maxPrice.
func (b *budget) reserve(kind string, byPrice []record.Product, h uint64) (record.Product, bool) {
	funds, cost := &b.balance, func(p record.Product) int64 { return p.MaxPrice() }
	if kind == record.KindCoins {
		funds, cost = &b.coins, func(p record.Product) int64 { return contract.CoinsFor(p.MaxPrice()) }
	}
	for {
		have := funds.Load()
		k := sort.Search(len(byPrice), func(i int) bool { return cost(byPrice[i]) > have })
		if k == 0 {
			return record.Product{}, false
		}
		p := byPrice[int(h%uint64(k))]
		if funds.CompareAndSwap(have, have-cost(p)) {
			return p, true
		}
	}
}

// settle gives back, once the payment of j was sent with result r, what it
// reserved from its account's budget and was not debited. A retry's lost
// or throttled send keeps its reservation for its next send, and so does a
// retry's 409 (its first send was debited).
func (j *job) settle(r *record.Result) {
	p := j.pay
	if j.wallet == nil || p == nil {
		return
	}
	if p.Attempt > 0 && (r.Uncertain || r.NotDelivered || r.Throttled || p.Attempt > 1 && p.Outcome == record.OutcomeDuplicate) {
		return
	}
	j.wallet.settle(p)
}

// settle gives back what payment p reserved and was not debited.
func (b *budget) settle(p *record.Payment) {
	switch p.Outcome {
	case record.OutcomeCreated:
		if p.Amount != nil {
			b.balance.Add(p.MaxBalance - p.Amount.BalanceUsed)
			b.coins.Add(p.MaxCoins - p.Amount.CoinUsed)
		}
	case record.OutcomeRefused, record.OutcomeDuplicate, record.OutcomeNotDelivered:
		b.balance.Add(p.MaxBalance)
		b.coins.Add(p.MaxCoins)
	}
}

// planFunds works out the FundsPlan of a run of requests payment requests
// (balance and coin shares by mix) against the budgets of accounts.
func planFunds(payments float64, d time.Duration, mix Weights, products []record.Product, accounts []Account, source, whenDry string) *record.FundsPlan {
	if payments <= 0 || len(products) == 0 || mix.total() == 0 {
		return nil
	}
	f := &record.FundsPlan{Source: source, WhenDry: whenDry}
	var sum int64
	for _, p := range products {
		sum += p.MaxPrice()
	}
	f.MeanPrice = sum / int64(len(products))
	total := float64(mix.total())
	f.BalancePayments = int64(payments * float64(mix[record.KindBalance]) / total)
	f.CoinPayments = int64(payments * float64(mix[record.KindCoins]) / total)
	f.BalanceNeeded = f.BalancePayments * f.MeanPrice
	f.CoinsNeeded = contract.CoinsFor(f.CoinPayments * f.MeanPrice)
	known := false
	for _, a := range accounts {
		if a.wallet == nil {
			continue
		}
		known = true
		f.BalanceHeld += a.wallet.balance.Load()
		f.CoinsHeld += a.wallet.coins.Load()
	}
	if !known {
		return nil
	}
	f.Short = f.BalanceHeld < f.BalanceNeeded || f.CoinsHeld < f.CoinsNeeded
	if f.Short {
		carried := 1.0
		if f.BalanceNeeded > 0 {
			carried = min(carried, float64(f.BalanceHeld)/float64(f.BalanceNeeded))
		}
		if f.CoinsNeeded > 0 {
			carried = min(carried, float64(f.CoinsHeld)/float64(f.CoinsNeeded))
		}
		f.DryAfter = time.Duration(carried * float64(d))
	}
	return f
}

// setBudget gives a the budget of a wallet holding balance and coins.
func (a *Account) setBudget(balance, coins int64) {
	a.wallet = &budget{}
	a.wallet.balance.Store(balance)
	a.wallet.coins.Store(coins)
}

// readWallet reads acct's wallet and records the read in h.
func readWallet(ctx context.Context, cl *client, h *record.History, acct Account, client int, phase string) (record.Wallet, error) {
	invoke := time.Now()
	// The reads during the attack are the history's samples: one the
	// target throttles is a read that failed, and holds off nothing (the
	// attack spends the target's allowance, not the reconciliation's).
	w, err := cl.wallet(ctx, acct.auth, phase != record.PhaseAttack)
	if h != nil {
		op := record.HistoryOp{Client: client, Phase: phase, Op: record.OpProfile, Account: acct.Key, Invoke: record.Stamp(invoke)}
		if err != nil {
			op.Error = err.Error()
		} else {
			op.Return, op.Code = record.Stamp(time.Now()), http.StatusOK
			op.Balance, op.Coins = &w.Balance, &w.Coins
		}
		h.Add(op)
	}
	return w, err
}
