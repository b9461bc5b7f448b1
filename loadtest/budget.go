package loadtest

import (
	"sort"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

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
