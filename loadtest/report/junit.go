package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/internal/junit"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// invariantCases are the invariant classes a JUnit file has a test case
// for, whether they occurred or not, in the order the verdict leads with.
var invariantCases = []struct{ class, name string }{
	{verdict.ClassLost, "lost writes"},
	{verdict.ClassResurrected, "resurrected payments"},
	{verdict.ClassDuplicate, "duplicate debits"},
	{verdict.ClassIdempotency, "idempotency waves"},
	{verdict.ClassWalletMismatch, "wallet mismatches"},
	{verdict.ClassUncertain, "uncertain requests"},
	{verdict.ClassNotReconciled, "not reconciled"},
	{verdict.ClassContract, "contract violations"},
	{ClassGateway, "gateway answers"},
}

// writeJUnit writes rep as JUnit XML (JUnit) (--junit FILE), as k6's summary
// handlers do, so that a failed load test shows in a CI's test tab: a
// suite of the invariant classes, one case each, failed with what the
// verdict counted; a suite of the thresholds, one case each, failed with
// the value measured; and a case for the run as a whole, failed with every
// failure of the report when it failed (an interrupted run, a fault that
// did not run, ...).
func (rep *Report) writeJUnit(w io.Writer) error {
	stamp, secs := rep.Began.UTC().Format("2006-01-02T15:04:05"), junit.Seconds(rep.Ended.Sub(rep.Began).Seconds())
	name := "load test " + rep.RunID + " (" + rep.Scenario + ")"
	invariants := junit.Suite{Name: name + ": invariants", Timestamp: stamp, Time: secs}
	for _, ic := range invariantCases {
		invariants.Cases = append(invariants.Cases, rep.invariantCase(ic.class, ic.name, invariants.Name))
	}
	thresholds := junit.Suite{Name: name + ": thresholds", Timestamp: stamp, Time: secs}
	for _, th := range rep.Thresholds {
		c := junit.Case{Name: th.Expr, Classname: thresholds.Name}
		if !th.Passed {
			c.Failure = &junit.Failure{Message: th.failure(rep.Scenario), Type: "threshold"}
		}
		thresholds.Cases = append(thresholds.Cases, c)
	}
	whole := junit.Case{Name: "the run passes", Classname: name}
	if !rep.Passed {
		whole.Failure = &junit.Failure{Message: rep.Failures[0], Type: "run", Body: strings.Join(rep.Failures, "\n")}
	}
	run := junit.Suite{Name: name, Timestamp: stamp, Time: secs, Cases: []junit.Case{whole}}
	return junit.Write(w, junit.Report{Name: "Partner Commerce API v2 load test", Time: secs, Suites: []junit.Suite{run, invariants, thresholds}})
}

// invariantCase is the test case of an invariant class: failed with its
// verdict line when the class occurred and fails the run, skipped when the
// run did not measure it (without the reconciliation). Uncertain requests
// fail by their threshold (uncertain_pct), as the run does.
func (rep *Report) invariantCase(class, name, suite string) junit.Case {
	c := junit.Case{Name: name, Classname: suite}
	i := slices.IndexFunc(rep.Verdict, func(l ClassLine) bool { return l.Class == class })
	switch {
	case class == verdict.ClassUncertain:
		if j := slices.IndexFunc(rep.Thresholds, func(t ThresholdResult) bool {
			return !t.Passed && (t.Metric == "uncertain_pct" || t.Metric == "uncertain")
		}); j >= 0 {
			c.Failure = &junit.Failure{Message: fmt.Sprintf("%d uncertain requests (%.3f%%): %s", rep.Uncertain, rep.UncertainPct, rep.Thresholds[j].failure(rep.Scenario)), Type: class}
		}
		if i >= 0 {
			c.SystemOut = rep.Verdict[i].Text
		}
	case i >= 0:
		c.Failure = &junit.Failure{Message: rep.Verdict[i].Text + rep.causeOf(class), Type: class}
	case class != verdict.ClassContract && class != ClassGateway && rep.Reconciliation == nil:
		c.Skipped = &junit.Skipped{Message: "not measured: the run was not reconciled (--no-reconcile)"}
	case class == verdict.ClassWalletMismatch || class == verdict.ClassIdempotency:
		if s := rep.unexercised(class); s != "" {
			c.Skipped = &junit.Skipped{Message: "not exercised: " + s}
		}
	}
	return c
}

// unexercised says which rules of class (wallet mismatches, idempotency
// waves) the run did not put to the test, and what would; "" when it did.
func (rep *Report) unexercised(class string) string {
	rule := RuleWallet
	if class == verdict.ClassIdempotency {
		rule = RuleReusedIDs
	}
	var lines []string
	change := ""
	for _, e := range rep.Exercises {
		if e.Rule == rule && !e.Exercised {
			lines, change = append(lines, e.Text), e.Change
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "; ") + " (" + change + ")"
}

// causeOf says which finding a class is a consequence of, when one is
// (" (a consequence of: a reused partner_trx_id was accepted: ...)"), and
// no finding of its own.
func (rep *Report) causeOf(class string) string {
	if slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Class == class }) {
		return ""
	}
	for _, f := range rep.Findings {
		for _, c := range f.Consequences {
			if c.Class == class {
				return " (a consequence of: " + f.Headline + ")"
			}
		}
	}
	return ""
}
