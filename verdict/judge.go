package verdict

import (
	"fmt"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
)

// The judges of a run, as --judges and the reports name them.
const (
	JudgeScenarios = "scenarios"
	JudgeGenerated = "generated"
	JudgeProbe     = "probe"
)

// judgeNames are how the writers title each judge's cases, and the words
// that count them; a judge they do not know is titled by its name and
// counts "cases".
var judgeNames = map[string]struct{ title, one, many string }{
	JudgeScenarios: {"Scenarios of the feature files", "scenario", "scenarios"},
	JudgeGenerated: {"Generated properties and stateful sequences", "property", "properties"},
	JudgeProbe:     {"Concurrency probe", "probe case", "probe cases"},
}

// JudgeTitle is how the writers title the cases of judge.
func JudgeTitle(judge string) string {
	if n, ok := judgeNames[judge]; ok {
		return n.title
	}
	return judge
}

// CountCases is n cases of judge in words: "18 scenarios", "1
// property"; "" (cases of several judges) counts "cases".
func CountCases(n int, judge string) string {
	if names, ok := judgeNames[judge]; ok {
		return readable.Plural(n, names.one, names.many)
	}
	return readable.Plural(n, "case", "cases")
}

// The states of a judge in a run (JudgeRun.State).
const (
	// JudgeRan: the judge ran, to its end or to its budget.
	JudgeRan = "ran"
	// JudgeNotAsked: the run was narrowed to other judges (--judges).
	JudgeNotAsked = "not asked"
	// JudgeNotRun: the run stopped (the target stopped answering, kept
	// throttling, or the run was interrupted) before the judge's turn.
	JudgeNotRun = "not run"
)

// JudgeRun is what one judge of a run did (summary.json's "judges"): its
// state, its budget and how much of it was used, and its cases counted.
type JudgeRun struct {
	// Name is the judge's name: JudgeScenarios, JudgeGenerated, JudgeProbe.
	Name string `json:"name"`
	// State is JudgeRan, JudgeNotAsked or JudgeNotRun; Reason says why a
	// judge did not run, or did not run to its end.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Budget is what the run gave the judge, in words ("100 examples a
	// property, sequences of 25 steps on average, 29.4s").
	Budget string `json:"budget,omitempty"`
	// BudgetSeconds is the time the run gave the judge (0: no bound).
	BudgetSeconds float64 `json:"budget_seconds,omitempty"`
	// Seed repeats a judge that draws its cases at random (--seed).
	Seed uint64 `json:"seed,omitempty"`
	// Examples counts what the judge ran of what its budget planned, in
	// its Unit (scenarios, examples, waves).
	Examples int    `json:"examples"`
	Planned  int    `json:"planned"`
	Unit     string `json:"unit"`
	// Requests counts the requests the judge sent, when it counts them.
	Requests int64   `json:"requests,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Counts counts the judge's cases by outcome.
	Counts Counts `json:"cases"`
	// Cuts say each case that ran fewer examples than planned, and why:
	// "sequences: 10 of 50 examples run: the target throttled".
	Cuts []string `json:"cuts,omitempty"`
	// Rerun is the command that runs the judge alone again, with its seed.
	Rerun string `json:"rerun,omitempty"`
}

// Line is the judge on one line of the console's summary.
func (j JudgeRun) Line() string {
	if j.State != JudgeRan {
		if j.Reason == "" {
			return j.State
		}
		return j.State + ": " + j.Reason
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", CountCases(j.Counts.Total(), j.Name), countsLine(j.Counts))
	if j.Unit != "" && j.Name != JudgeScenarios {
		fmt.Fprintf(&b, "; %s of %s %s run", readable.Thousands(j.Examples), readable.Thousands(j.Planned), j.Unit)
	}
	if j.Requests > 0 {
		fmt.Fprintf(&b, ", %s requests", readable.Thousands(j.Requests))
	}
	if j.Seed != 0 {
		fmt.Fprintf(&b, ", seed %d", j.Seed)
	}
	fmt.Fprintf(&b, ", %.1fs", j.Seconds)
	if j.Budget != "" {
		fmt.Fprintf(&b, " (budget: %s)", j.Budget)
	}
	if j.Reason != "" {
		fmt.Fprintf(&b, "; %s", j.Reason)
	}
	return b.String()
}

// countsLine is counts in words, leaving out the outcomes none had:
// "124 passed", "12 passed (1 with warnings), 3 failed, 2 not judged".
func countsLine(c Counts) string {
	var parts []string
	if c.Passed > 0 || c == (Counts{}) {
		p := fmt.Sprintf("%d passed", c.Passed)
		if c.Warned > 0 {
			p += fmt.Sprintf(" (%d with warnings)", c.Warned)
		}
		parts = append(parts, p)
	}
	for _, n := range []struct {
		n    int
		word string
	}{{c.Failed, "failed"}, {c.Undefined, "undefined"}, {c.NotJudged, "not judged"}, {c.Skipped, "skipped"}} {
		if n.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n.n, n.word))
		}
	}
	return strings.Join(parts, ", ")
}

// The verdicts of a run: the first word of its RESULT line and of its page.
const (
	VerdictPass        = "PASS"
	VerdictFail        = "FAIL"
	VerdictIncomplete  = "INCOMPLETE"
	VerdictStopped     = "STOPPED"
	VerdictInterrupted = "INTERRUPTED"
)

// Of is the one verdict of a run, whatever its judges, from its cases
// counted, its stop, and whether the target stopped answering an endpoint:
//
//   - STOPPED or INTERRUPTED when the run ended before its judges did;
//     INCOMPLETE when it ended because the answers were mostly a
//     gateway's, not the API's;
//   - INCOMPLETE when the target stopped answering an endpoint, and the
//     run went on without it;
//   - FAIL when a case failed (or a scenario had a step without a
//     definition): a defect found is a verdict, whatever was not judged;
//   - INCOMPLETE when a case was not judged: the target refused what it
//     needed to observe its rule, so the rule was not judged, and a run
//     that left rules unjudged is not a pass;
//   - PASS otherwise (warnings included: readings not followed).
//
// A stopped, interrupted or incomplete run that also failed says so
// ("STOPPED (with failures)").
func Of(t Counts, stop *Stop, endpointsStopped bool) string {
	failed := t.Failed > 0 || t.Undefined > 0
	withFailures := func(v string) string {
		if t.Failed > 0 {
			return v + " (with failures)"
		}
		return v
	}
	switch {
	case stop != nil && stop.Cause == StopInterrupted:
		return withFailures(VerdictInterrupted)
	case stop != nil && stop.Cause == StopGateway:
		return withFailures(VerdictIncomplete)
	case stop != nil:
		return withFailures(VerdictStopped)
	case endpointsStopped:
		return withFailures(VerdictIncomplete)
	case failed:
		return VerdictFail
	case t.NotJudged > 0:
		return VerdictIncomplete
	}
	return VerdictPass
}

// The causes of a stopped run (Stop.Cause).
const (
	StopTarget      = "target-stopped-answering"
	StopInterrupted = "interrupted"
	// StopThrottled: the target throttled the run past --max-throttle-wait.
	StopThrottled = "target-kept-throttling"
	// StopGateway: the answers were mostly a gateway's, not the API's
	// (contract.MostlyGateway): the run is INCOMPLETE.
	StopGateway = "gateway-answered"
)

// Stop says why a run ended before its scenarios did (summary.json's
// "stopped").
type Stop struct {
	// Cause is StopTarget, StopThrottled, StopGateway or StopInterrupted.
	Cause string `json:"cause"`
	// Reason is one sentence: what happened.
	Reason string `json:"reason"`
	// AfterScenarios counts the scenarios run to their end before the stop.
	AfterScenarios int `json:"after_scenarios"`
	// NotRun counts the scenarios not run, or not run to their end, because of it.
	NotRun int `json:"not_run"`
	// LastTransportError is the failure of the last request that got no
	// answer (StopTarget).
	LastTransportError string `json:"last_transport_error,omitempty"`
}

// Banner is the one line the console and the page lead with.
func (s *Stop) Banner() string {
	word := "STOPPED"
	switch s.Cause {
	case StopInterrupted:
		word = "INTERRUPTED"
	case StopGateway:
		word = VerdictIncomplete
	}
	return fmt.Sprintf("%s after %s: %s; %s not run (none counted as failed)", word,
		readable.Plural(s.AfterScenarios, "scenario", "scenarios"), s.Reason, readable.Plural(s.NotRun, "scenario", "scenarios"))
}

// The exit codes of a run: a pass, a defect found, and a run that could
// not judge every rule (INCOMPLETE, STOPPED). An interrupted run exits
// with the shell's 128 + the signal (internal/cli).
const (
	ExitPass        = 0
	ExitFail        = 1
	ExitIncomplete  = 2
	ExitInterrupted = 130
)

// ExitCode is the exit code of a run whose cases counted t, whose stop is
// stop (or nil), and whose target stopped answering an endpoint when
// endpointsStopped: a run the target or a gateway stopped did not judge
// what it did not reach (ExitIncomplete, whatever it found before); a
// defect found is a failure; a rule not judged leaves the run incomplete.
func ExitCode(t Counts, stop *Stop, endpointsStopped bool) int {
	switch {
	case stop != nil && stop.Cause == StopInterrupted:
		return ExitInterrupted
	case stop != nil:
		return ExitIncomplete
	case t.Failed > 0 || t.Undefined > 0:
		return ExitFail
	case t.NotJudged > 0 || endpointsStopped:
		return ExitIncomplete
	}
	return ExitPass
}
