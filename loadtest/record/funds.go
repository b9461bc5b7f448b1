package record

import (
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/internal/readable"
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
		readable.Thousands(f.BalancePayments), readable.Thousands(f.BalanceNeeded), readable.Thousands(f.BalanceHeld), readable.Thousands(f.CoinPayments),
		readable.Thousands(f.CoinsNeeded), readable.Thousands(f.CoinsHeld), f.Source, readable.Thousands(f.MeanPrice))
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
