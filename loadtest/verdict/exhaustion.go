package verdict

import (
	"fmt"
	"sort"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// Exhaustion describes the balance and coin payments the server refused
// with 422 (document §7: "Payment cannot be processed yet"): when the paying
// accounts run dry this is the correct answer, not a server failure, and the
// report says so instead of failing thresholds as if the server had failed.
type Exhaustion struct {
	// After is the time from the start of the run to the first refusal.
	After time.Duration `json:"after"`
	// Refused counts balance and coin payments refused with 422; Answered
	// counts those answered at all; RefusedPct is their ratio in percent.
	Refused    int     `json:"refused"`
	Answered   int     `json:"answered"`
	RefusedPct float64 `json:"refused_pct"`
	// Message is the most frequent refusal message.
	Message string `json:"message"`
	// Dry lists the accounts whose wallet after the run cannot pay for the
	// cheapest product of the catalog; empty when none was read so.
	Dry []string `json:"dry_accounts,omitempty"`
}

// Exhausted reports whether the refusals are explained by accounts that ran
// dry (wallets read after the run).
func (x *Exhaustion) Exhausted() bool { return len(x.Dry) > 0 }

// String says it plainly, for the text report.
func (x *Exhaustion) String() string {
	what := "balance and coin payments were refused with 422 from"
	if x.Exhausted() {
		what = "load customers exhausted (" + fmt.Sprint(len(x.Dry)) + " accounts cannot pay for the cheapest product) after"
	}
	return fmt.Sprintf("%s %s: %.0f%% of balance and coin payments (%d of %d) were refused with 422 %q",
		what, x.After.Round(100*time.Millisecond), x.RefusedPct, x.Refused, x.Answered, x.Message)
}

// ExhaustionOf describes the 422 refusals of balance and coin payments
// counted in x, with run's catalog and wallets; nil when there are none.
func ExhaustionOf(run *record.Run, x0 *record.RefusalTally) *Exhaustion {
	if x0.Refused == 0 {
		return nil
	}
	x := &Exhaustion{Refused: x0.Refused, Answered: x0.Answered}
	x.RefusedPct = 100 * float64(x.Refused) / float64(x.Answered)
	if !x0.First.IsZero() {
		x.After = x0.First.Sub(run.Meta.Began)
	}
	best := -1
	for m, n := range x0.Messages {
		if n > best || (n == best && m < x.Message) {
			x.Message, best = m, n
		}
	}
	if run.Catalog != nil && len(run.Catalog.Products) > 0 {
		cheapest := run.Catalog.Products[0].FinalPrice
		for _, pr := range run.Catalog.Products {
			cheapest = min(cheapest, pr.FinalPrice)
		}
		for _, a := range run.Accounts {
			if w := a.After; w != nil && w.Balance+contract.CoinValue(w.Coins) < cheapest {
				x.Dry = append(x.Dry, a.Account)
			}
		}
		sort.Strings(x.Dry)
	}
	return x
}
