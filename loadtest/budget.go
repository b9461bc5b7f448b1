package loadtest

import (
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
)

// What a run does when the paying accounts cannot afford any product
// (--when-dry).
const (
	// DryContinue sends the payments anyway: the server refuses them (a
	// 422 is the document's answer), and the report says the accounts ran
	// dry.
	DryContinue = "continue"
	// DryGateway pays the rest through payment gateways instead.
	DryGateway = "gateway"
	// DryStop ends the attack when the first account runs dry.
	DryStop = "stop"
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
func (b *budget) reserve(kind string, byPrice []Product, h uint64) (Product, bool) {
	funds, cost := &b.balance, func(p Product) int64 { return p.maxPrice() }
	if kind == KindCoins {
		funds, cost = &b.coins, func(p Product) int64 { return contract.CoinsFor(p.maxPrice()) }
	}
	for {
		have := funds.Load()
		k := sort.Search(len(byPrice), func(i int) bool { return cost(byPrice[i]) > have })
		if k == 0 {
			return Product{}, false
		}
		p := byPrice[int(h%uint64(k))]
		if funds.CompareAndSwap(have, have-cost(p)) {
			return p, true
		}
	}
}

// settle gives back what payment p reserved and was not debited.
func (b *budget) settle(p *Payment) {
	switch p.Outcome {
	case OutcomeCreated:
		if p.Amount != nil {
			b.balance.Add(p.MaxBalance - p.Amount.BalanceUsed)
			b.coins.Add(p.MaxCoins - p.Amount.CoinUsed)
		}
	case OutcomeRefused, OutcomeDuplicate, OutcomeNotDelivered:
		b.balance.Add(p.MaxBalance)
		b.coins.Add(p.MaxCoins)
	}
}

// FundsPlan is what the run expects to spend against what the paying
// accounts hold, worked out before the attack: balance and coin payments
// the load schedules, at the mean highest price of the products they choose
// from. Money is rupiah, coins are coins.
type FundsPlan struct {
	BalancePayments int64 `json:"balance_payments"`
	CoinPayments    int64 `json:"coin_payments"`
	MeanPrice       int64 `json:"mean_price"`
	BalanceNeeded   int64 `json:"balance_needed"`
	CoinsNeeded     int64 `json:"coins_needed"`
	BalanceHeld     int64 `json:"balance_held"`
	CoinsHeld       int64 `json:"coins_held"`
	// Source says where the holdings come from: the wallets read before the
	// run, or the profile's min_balance and min_coins.
	Source  string `json:"source"`
	WhenDry string `json:"when_dry"`
	// Short is true when the accounts cannot carry every planned payment;
	// DryAfter is then about when they run dry, from the start.
	Short    bool          `json:"short"`
	DryAfter time.Duration `json:"dry_after,omitempty"`
}

// String states the plan in one line, with a warning when it is short.
func (f *FundsPlan) String() string {
	s := fmt.Sprintf("%s balance payments need about Rp %s, the accounts hold Rp %s; %s coin payments need about %s coins, they hold %s (%s; mean price Rp %s)",
		thousands(f.BalancePayments), thousands(f.BalanceNeeded), thousands(f.BalanceHeld), thousands(f.CoinPayments),
		thousands(f.CoinsNeeded), thousands(f.CoinsHeld), f.Source, thousands(f.MeanPrice))
	if f.Short {
		s += fmt.Sprintf(" — WARNING: the accounts run dry after about %s; then --when-dry %s", f.DryAfter.Round(100*time.Millisecond), f.WhenDry)
		switch f.WhenDry {
		case DryContinue:
			s += " (the payments are sent and refused; --when-dry gateway pays the rest through gateways, stop ends the attack)"
		case DryGateway:
			s += " (the rest is paid through gateways)"
		case DryStop:
			s += " (the attack stops)"
		}
	}
	return s
}

// planFunds works out the FundsPlan of a run of requests payment requests
// (balance and coin shares by mix) against the budgets of accounts.
func planFunds(payments float64, d time.Duration, mix Weights, products []Product, accounts []Account, source, whenDry string) *FundsPlan {
	if payments <= 0 || len(products) == 0 || mix.total() == 0 {
		return nil
	}
	f := &FundsPlan{Source: source, WhenDry: whenDry}
	var sum int64
	for _, p := range products {
		sum += p.maxPrice()
	}
	f.MeanPrice = sum / int64(len(products))
	total := float64(mix.total())
	f.BalancePayments = int64(payments * float64(mix[KindBalance]) / total)
	f.CoinPayments = int64(payments * float64(mix[KindCoins]) / total)
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
