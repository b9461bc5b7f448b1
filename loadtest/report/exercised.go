package report

import (
	"fmt"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// Exercise is a rule that needs requests in flight together, and the
// overlap the run reached for it (record.OverlapTally): a wallet's rules
// (no debit lost to a concurrent write, none beyond the wallet) need two
// of its payments in flight at once, when it pays debits; the duplicate
// check of a reused partner_trx_id needs two requests of one id in flight
// at once. A rule
// the run never got there was not put to the test: it neither held nor
// broke, and the run is INCOMPLETE unless something else failed.
type Exercise struct {
	// Rule is RuleWallet or RuleReusedIDs.
	Rule string `json:"rule"`
	// Account is the wallet's account; "" for the reused ids.
	Account string `json:"account,omitempty"`
	// Requests counts the wallet's payments, or the ids the waves reused.
	Requests int `json:"requests"`
	// Peak is the most of the wallet's payments in flight at once, or the
	// most requests of one reused id.
	Peak int `json:"peak_in_flight"`
	// Overlapping counts the payments sent while another of the wallet
	// was in flight, or the reused ids that had two requests in flight at
	// once.
	Overlapping int  `json:"overlapping"`
	Exercised   bool `json:"exercised"`
	// Text is the line as the reports print it; Change, for a rule not
	// exercised, what would put it to the test.
	Text   string `json:"text"`
	Change string `json:"change,omitempty"`
}

// The rules that need overlap.
const (
	RuleWallet    = "wallet"
	RuleReusedIDs = "reused ids"
)

// What would put a rule not exercised to the test.
const (
	changeWallet    = "more rate per account (--rate), fewer accounts (the profile's load_customers), or waves of one id (--scenario idempotency, or the wave operation of the mixed scenario, --ops)"
	changeReusedIDs = "larger waves (--wave-size), with the workers to send each at once (--max-workers)"
)

// exercisesOf are the rules of a run that need overlap, with the overlap
// o counted: each wallet's that paid debits (balance or coins), when the
// run judges the wallets (wallets: reconciled, or its history checked),
// and the reused ids', when it sent waves.
func exercisesOf(o *record.OverlapTally, wallets bool) []Exercise {
	var out []Exercise
	if wallets {
		for _, a := range o.Accounts() {
			if a.Debits == 0 {
				continue // nothing to lose
			}
			e := Exercise{Rule: RuleWallet, Account: a.Account, Requests: a.Payments, Peak: a.Peak, Overlapping: a.Overlapping, Exercised: a.Peak > 1}
			e.Text = fmt.Sprintf("%s: %s payments (%s debits), at most %s in flight at once, %s sent while another was in flight",
				a.Account, readable.Thousands(a.Payments), readable.Thousands(a.Debits), readable.Thousands(a.Peak), readable.Thousands(a.Overlapping))
			if !e.Exercised {
				e.Change = changeWallet
			}
			out = append(out, e)
		}
	}
	if w := o.Waves(); w.IDs > 0 {
		e := Exercise{Rule: RuleReusedIDs, Requests: w.IDs, Peak: w.MostPeak, Overlapping: w.Overlapped, Exercised: w.Overlapped > 0}
		e.Text = fmt.Sprintf("partner_trx_ids reused by waves: %s ids, each's most requests in flight at once from %s to %s; %s had two or more in flight",
			readable.Thousands(w.IDs), readable.Thousands(w.LeastPeak), readable.Thousands(w.MostPeak), readable.Thousands(w.Overlapped))
		if !e.Exercised {
			e.Change = changeReusedIDs
		}
		out = append(out, e)
	}
	return out
}

// NotExercised says which rules the run did not put to the test and what
// would; "" when it exercised every rule that needs overlap.
func (rep *Report) NotExercised() string {
	var wallets []string
	var parts []string
	for _, e := range rep.Exercises {
		switch {
		case e.Exercised:
		case e.Rule == RuleWallet:
			wallets = append(wallets, e.Account)
		default:
			parts = append(parts, fmt.Sprintf("the duplicate check was not exercised: no reused partner_trx_id had two requests in flight at once (%s)", changeReusedIDs))
		}
	}
	if len(wallets) > 0 {
		parts = append([]string{fmt.Sprintf("the wallet rules were not exercised on %s: no two of %s payments were ever in flight at once (%s)",
			strings.Join(wallets, ", "), map[bool]string{true: "its", false: "their"}[len(wallets) == 1], changeWallet)}, parts...)
	}
	return strings.Join(parts, "; ")
}

// writeTextExercises writes the overlap the run reached for each rule
// that needs it.
func (rep *Report) writeTextExercises(b *strings.Builder) {
	if len(rep.Exercises) == 0 {
		return
	}
	fmt.Fprintf(b, "\nOverlap (the rules that need requests in flight together)\n")
	for _, e := range rep.Exercises {
		mark := "exercised"
		if !e.Exercised {
			mark = "NOT EXERCISED: " + e.Change
		}
		fmt.Fprintf(b, "  %s  %s\n", e.Text, mark)
	}
}
