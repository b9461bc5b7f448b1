package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// ClassLine is one line a failed run's verdict leads with: a class of what
// went wrong, how many, and up to three examples (ids, or accounts).
type ClassLine struct {
	Class string `json:"class"`
	// Count is the number of the class's lines in violations.jsonl (ids, or
	// accounts), but for contract violations, which are answers (the error
	// set shows them; violations.jsonl has no line of theirs).
	Count    int      `json:"count"`
	Examples []string `json:"examples,omitempty"`
	// Text is the line as the text report and the page print it.
	Text string `json:"text"`
}

// exampleCount is how many examples a class line names.
const exampleCount = 3

// classLines sums up rep by class, in the order a reader acts on them:
// lost writes, resurrected payments, duplicate debits, broken idempotency
// waves, wallet mismatches, uncertain requests, ids not reconciled,
// contract violations. Only classes that occurred have a line. Each line
// counts the entries of its class (violations.jsonl), so that the page, the
// text and the file agree.
func classLines(rep *Report, faults []nemesis.Fault, began time.Time) []ClassLine {
	r := rep.Reconciliation
	by := entriesByClass(r, faults)
	var lines classLineList
	lost := by[verdict.ClassLost]
	lines.add(verdict.ClassLost, lost, "%s lost writes: acknowledged as created, then not found by payment status%s",
		readable.Thousands(len(lost)), acrossFaults(lost, faults, began))
	res := by[verdict.ClassResurrected]
	lines.add(verdict.ClassResurrected, res, "%s resurrected payments: refused or never delivered, then found created%s",
		readable.Thousands(len(res)), acrossFaults(res, faults, began))
	dup := by[verdict.ClassDuplicate]
	if r != nil {
		lines.add(verdict.ClassDuplicate, dup, "%s ids created more than once: %s duplicate debits", readable.Thousands(len(dup)), readable.Thousands(r.Duplicates))
	}
	waves := by[verdict.ClassIdempotency]
	lines.add(verdict.ClassIdempotency, waves, "%s idempotency waves broken: more than one created, or answers other than a 409 or one same refusal", readable.Thousands(len(waves)))
	wm := by[verdict.ClassWalletMismatch]
	lines.add(verdict.ClassWalletMismatch, wm, "%s wallet mismatches: accounts whose balance or coins do not reconcile with the ledger", readable.Thousands(len(wm)))
	if un := by[verdict.ClassUncertain]; len(un) > 0 {
		lines.addUncertain(rep.Uncertain, un, faults, began)
	}
	nr := by[verdict.ClassNotReconciled]
	lines.add(verdict.ClassNotReconciled, nr, "%s not reconciled: created ids or accounts the reconciliation could not check", readable.Thousands(len(nr)))
	if n := rep.Contract.Violations; n > 0 {
		var ex []string
		for _, e := range rep.Errors {
			if strings.HasPrefix(e.Error, "contract: ") && len(ex) < exampleCount {
				ex = append(ex, e.Example)
			}
		}
		lines.line(verdict.ClassContract, n, ex, "%s contract violations: answers the document does not allow", readable.Thousands(n))
	}
	lines.addThrottled(rep)
	if rep.Gateway > 0 {
		var ex []string
		for _, e := range rep.Errors {
			if _, ok := gatewayOf(e); ok && len(ex) < exampleCount {
				ex = append(ex, e.Example)
			}
		}
		lines.line(ClassGateway, rep.Gateway, ex, "%s answers came from a gateway in front of the target, not from the API", readable.Thousands(rep.Gateway))
	}
	return lines
}

// entriesByClass groups the entries of r (none when nil) by class, first
// naming the fault under way when each was sent.
func entriesByClass(r *verdict.Reconciliation, faults []nemesis.Fault) map[string][]verdict.Entry {
	by := map[string][]verdict.Entry{}
	if r == nil {
		return by
	}
	if len(faults) > 0 {
		for i := range r.Entries {
			if !r.Entries[i].At.IsZero() {
				r.Entries[i].Fault = faultOf(r.Entries[i].At, faults)
			}
		}
	}
	for _, e := range r.Entries {
		by[e.Class] = append(by[e.Class], e)
	}
	return by
}

// classLineList collects the class lines of a report.
type classLineList []ClassLine

// add adds the line of class, whose entries are es (none: no line).
func (l *classLineList) add(class string, es []verdict.Entry, format string, args ...any) {
	l.line(class, len(es), exampleIDs(es), format, args...)
}

// line adds the line of class, which occurred n times (none: no line).
func (l *classLineList) line(class string, n int, examples []string, format string, args ...any) {
	if n == 0 {
		return
	}
	text := fmt.Sprintf(format, args...)
	if len(examples) > 0 {
		text += " (e.g. " + strings.Join(examples, ", ") + ")"
	}
	*l = append(*l, ClassLine{Class: class, Count: n, Examples: examples, Text: text})
}

// addUncertain adds the line of n uncertain requests, whose ids without a
// created answer are un (the class's entries, at least one).
func (l *classLineList) addUncertain(n int, un []verdict.Entry, faults []nemesis.Fault, began time.Time) {
	by := map[string]int{}
	for _, e := range un {
		by[e.Resolution]++
	}
	l.add(verdict.ClassUncertain, un, "%s uncertain requests (no answer within the timeout; %s ids without a created answer: payment status found %s created, %s never created, %s unresolved)%s",
		readable.Thousands(n), readable.Thousands(len(un)), readable.Thousands(by[verdict.ResolvedCreated]), readable.Thousands(by[verdict.ResolvedNeverCreated]), readable.Thousands(by[verdict.Unresolved]),
		acrossFaults(un, faults, began))
}

// exampleIDs are the ids of the first exampleCount entries.
func exampleIDs(es []verdict.Entry) []string {
	var out []string
	for _, e := range es[:min(len(es), exampleCount)] {
		out = append(out, e.ID)
	}
	return out
}

// acrossFaults says which faults the entries' ids crossed: the fault
// under way when each was sent or, for one sent between faults, the next.
func acrossFaults(es []verdict.Entry, faults []nemesis.Fault, began time.Time) string {
	if len(faults) == 0 || len(es) == 0 {
		return ""
	}
	count := make([]int, len(faults)+1)
	for _, e := range es {
		count[e.Fault]++
	}
	var parts []string
	for f := 1; f <= len(faults); f++ {
		if count[f] > 0 {
			ft := faults[f-1]
			parts = append(parts, fmt.Sprintf("%s before or during fault %d (%s at %s)", readable.Thousands(count[f]), f, ft.Name, readable.Duration(ft.Start.Sub(began))))
		}
	}
	if count[0] > 0 {
		parts = append(parts, fmt.Sprintf("%s after the last fault", readable.Thousands(count[0])))
	}
	const shown = 3
	if len(parts) > shown {
		parts = append(parts[:shown], fmt.Sprintf("and %d more faults", len(parts)-shown))
	}
	return "; " + strings.Join(parts, ", ")
}

// faultOf is the fault (from 1) under way at t, or the first after it; 0
// when every fault ended before t.
func faultOf(t time.Time, faults []nemesis.Fault) int {
	for i, f := range faults {
		if !f.End.Before(t) {
			return i + 1
		}
	}
	return 0
}

// headline is the verdict in a few words: PASS, FAIL, INCOMPLETE or
// INTERRUPTED, the warnings of a pass, and the caveats of a pass or of a
// run that did not exercise a rule (caveats).
func (rep *Report) headline() string {
	switch {
	case rep.Interrupted:
		return "INTERRUPTED"
	case rep.Incomplete != "" && rep.Incomplete == rep.NotExercised():
		return "INCOMPLETE: " + rep.Incomplete + rep.caveats()
	case rep.Incomplete != "":
		return "INCOMPLETE: " + rep.Incomplete
	case !rep.Passed && len(rep.Findings) == 1:
		return "FAIL: 1 finding"
	case !rep.Passed && len(rep.Findings) > 1:
		return fmt.Sprintf("FAIL: %d findings", len(rep.Findings))
	case !rep.Passed:
		return "FAIL"
	}
	pass := "PASS"
	if n := rep.WarningCount(); n > 0 {
		pass = fmt.Sprintf("PASS with %s warnings (readings of the document not followed; --strict makes them failures)", readable.Thousands(n))
	}
	return pass + rep.caveats()
}

// caveats are what a run in which nothing failed measured besides
// payments: that most balance and coin payments were refused because the
// wallets ran dry, that the target throttled the offered rate.
func (rep *Report) caveats() string {
	s := ""
	if x := rep.Exhaustion; x != nil && x.RefusedPct > 50 {
		s = fmt.Sprintf(", but %.0f%% of balance and coin payments were refused (422): the wallets ran dry, so this run measured refusals, not payments", x.RefusedPct)
	}
	if c := rep.throttledCaveat(); c != "" {
		s += ", but " + c
	}
	return s
}

// writeLead writes the lines a report leads with: the headline and, for a
// run that did not pass, its findings, each with the sentence of the
// document, a request and its answer, and the consequences folded under
// it.
func (rep *Report) writeLead(b *strings.Builder) {
	fmt.Fprintf(b, "%s\n", rep.headline())
	if rep.Passed || rep.Incomplete != "" {
		return
	}
	for i, f := range rep.Findings {
		fmt.Fprintf(b, "  %d. %s", i+1, f.String("     "))
	}
	if r := rep.Reconciliation; r != nil && len(r.Entries) > 0 {
		fmt.Fprintf(b, "  every id: %s\n", FileViolations)
	}
}

// reconciledIn is ", reconciled in 1.2 s" after the attack's end, or why
// the reconciliation stopped.
func (rep *Report) reconciledIn() string {
	switch {
	case rep.ReconcileStopped != "":
		return "; reconciliation stopped: " + rep.ReconcileStopped
	case rep.ReconciledIn > 0:
		return ", reconciled in " + readable.Duration(rep.ReconciledIn)
	}
	return ""
}

// notDeliveredText counts the requests that never reached the server.
func (rep *Report) notDeliveredText() string {
	if rep.NotDelivered == 0 {
		return ""
	}
	return fmt.Sprintf("; %s not delivered (no connection could be made: certainly not processed)", readable.Thousands(rep.NotDelivered))
}

// writeFaults lists the faults of the run, each with its start and end
// from the attack's start.
func (rep *Report) writeFaults(b *strings.Builder) {
	if len(rep.Faults) == 0 {
		return
	}
	fmt.Fprintf(b, "Faults    %d (commands' output in %s)\n", len(rep.Faults), record.FileNemesisLog)
	for i, f := range rep.Faults {
		status := "ok"
		if f.Error != "" {
			status = "FAILED: " + f.Error
		}
		fmt.Fprintf(b, "  %3d  %-24s %9s → %-9s %s\n", i+1, f.Name, readable.Duration(f.Start.Sub(rep.Began)), readable.Duration(f.End.Sub(rep.Began)), status)
	}
}

// FileViolations lists, one JSON object a line, every id (or account) of
// the verdict: its class, what happened, when it was sent, the fault it
// crossed and, for an uncertain id, how it resolved.
const FileViolations = "violations.jsonl"

// writeViolations writes the entries of r as JSON lines (Violations).
func writeViolations(w io.Writer, r *verdict.Reconciliation) error {
	enc := json.NewEncoder(w)
	for i := range r.Entries {
		if err := enc.Encode(&r.Entries[i]); err != nil {
			return err
		}
	}
	return nil
}
