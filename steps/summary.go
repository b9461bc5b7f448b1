package steps

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// coverage collects, across scenarios, the operations and statuses
// received and the messages asserted.
type coverage struct {
	mu       sync.Mutex
	statuses map[string]map[int]bool
	messages map[string]bool
	rows     map[string]bool // report.RowKey of each asserted (operation, status, message)
}

func newCoverage() *coverage {
	return &coverage{statuses: map[string]map[int]bool{}, messages: map[string]bool{}, rows: map[string]bool{}}
}

func (c *coverage) exercised(op string, status int) {
	if op == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.statuses[op] == nil {
		c.statuses[op] = map[int]bool{}
	}
	c.statuses[op][status] = true
}

func (c *coverage) asserted(ex *exchange, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages[msg] = true
	if ex != nil {
		c.rows[report.RowKey(ex.Operation, ex.Status, msg)] = true
	}
}

// scenariosRun is what the run's scenarios did, as a judge of the run:
// their results in file order, or, when the run was narrowed to its other
// judges, that they were not asked.
func (h *harness) scenariosRun(opts Options, selected bool, took time.Duration) Judgement {
	run := verdict.JudgeRun{Name: verdict.JudgeScenarios, State: verdict.JudgeRan, Unit: "scenarios", Seconds: took.Seconds()}
	if opts.NoScenarios {
		run.State, run.Reason = verdict.JudgeNotAsked, leftOut(opts.LeftOut)
		return Judgement{Run: run}
	}
	if !selected {
		run.Reason = "the selection holds no scenario"
	}
	// In file order (the formatter's), whatever order they ended in.
	return Judgement{Run: run, Cases: h.fmt.scenarios()}
}

// result is the run's result, made once every judge has ended: the
// scenarios' results in file order, then the other judges' cases, counted
// by area and capability, with the coverage of the contract, what each
// judge ran, and the stop, if any. judged are the scenarios' judgement,
// then the other judges' in the order they ran; judgeStop the stop of a
// judge that did not run to its end.
func (h *harness) result(target string, start time.Time, elapsed time.Duration, judged []Judgement, judgeStop *verdict.Stop) Result {
	scenarios := judged[0].Cases
	stop := h.settleStop(scenarios)
	stoppedEndpoints := h.settleEndpoints(scenarios)
	h.gateway.settle(scenarios)
	results := slices.Clone(scenarios)
	for _, j := range judged[1:] {
		results = append(results, j.Cases...)
	}

	sum := report.Summary{
		SuiteVersion: version.Suite,
		SpecSHA256:   version.SpecSHA256(),
		Target:       target,
		StartedAt:    start.UTC(),
		Seconds:      elapsed.Seconds(),
		Areas:        map[string]verdict.Counts{},
		Capabilities: map[string]report.Capability{},
		Scenarios:    results,
	}
	sum.Stopped = stop
	if stop == nil && judgeStop != nil {
		sum.Stopped = judgeStopped(judgeStop, results)
	}
	sum.StoppedEndpoints = stoppedEndpoints
	sum.Judges = judgeRuns(judged)
	sum.Throttling = h.gate.Summary()
	for _, c := range profiles.Capabilities() {
		miss := h.profile.Missing(c)
		sum.Capabilities[string(c)] = report.Capability{Available: len(miss) == 0, Missing: miss}
	}
	sum.Strict = h.strict
	sum.Warnings = report.WarningsByReading(results)
	for _, r := range results {
		sum.Levels.Warnings += len(r.Warnings)
		sum.Totals.Add(r)
		for _, t := range r.Tags {
			if slices.Contains(gherkin.Areas, t) {
				c := sum.Areas[t]
				c.Add(r)
				sum.Areas[t] = c
			}
			if cr, ok := sum.Capabilities[t]; ok {
				cr.Counts.Add(r)
				sum.Capabilities[t] = cr
			}
		}
	}

	sum.Coverage.Operations = map[string]report.OperationCoverage{}
	h.coverage.mu.Lock()
	for op, codes := range contract.DocumentedStatuses() {
		var got []int
		for code := range h.coverage.statuses[op] {
			got = append(got, code)
		}
		sort.Ints(got)
		sum.Coverage.Operations[op] = report.OperationCoverage{Documented: codes, Exercised: got}
	}
	for m := range h.coverage.messages {
		sum.Coverage.Messages = append(sum.Coverage.Messages, m)
	}
	h.coverage.mu.Unlock()
	sort.Strings(sum.Coverage.Messages)

	sum.Levels.Failures = sum.Totals.Failed
	sum.FailureGroups = report.GroupFailures(results)
	sum.NotJudgedGroups = report.GroupNotJudged(results)
	sum.Levels.Readings = len(sum.Warnings)
	if sum.Warnings == nil {
		sum.Warnings = []report.ReadingWarnings{}
	}

	return Result{Passed: sum.Totals.Passed, Warned: sum.Totals.Warned, Failed: sum.Totals.Failed,
		Skipped: sum.Totals.Skipped, Undefined: sum.Totals.Undefined, NotJudged: sum.Totals.NotJudged, Summary: sum}
}

// judgeRuns are what the judges of the run did, counted from their cases
// as the run settled them, in the order of the reports: the scenarios, the
// generated properties, the probe, then any other judge.
func judgeRuns(judged []Judgement) []verdict.JudgeRun {
	runs := make([]verdict.JudgeRun, 0, len(judged))
	for _, j := range judged {
		run := j.Run
		run.Counts = verdict.Counts{}
		for _, c := range j.Cases {
			run.Counts.Add(c)
		}
		if run.Name == verdict.JudgeScenarios && run.State == verdict.JudgeRan {
			run.Planned = len(j.Cases)
			run.Examples = len(j.Cases) - run.Counts.Skipped
		}
		runs = append(runs, run)
	}
	rank := []string{verdict.JudgeScenarios, verdict.JudgeGenerated, verdict.JudgeProbe}
	order := func(name string) int {
		if i := slices.Index(rank, name); i >= 0 {
			return i
		}
		return len(rank)
	}
	sort.SliceStable(runs, func(i, j int) bool { return order(runs[i].Name) < order(runs[j].Name) })
	return runs
}

// judgeStopped is the stop of a judge that did not run to its end, for the
// run: its cases not run to their end counted.
func judgeStopped(stop *verdict.Stop, results []verdict.Case) *verdict.Stop {
	s := *stop
	s.NotRun = 0
	for _, r := range results {
		if r.NotRun {
			s.NotRun++
		}
	}
	s.AfterScenarios = len(results) - s.NotRun
	return &s
}

// matrix fills in section 7 for the results of a run, from what the run
// received and asserted.
func (h *harness) matrix(results []verdict.Case) []report.MatrixRow {
	h.coverage.mu.Lock()
	defer h.coverage.mu.Unlock()
	if results == nil {
		results = []verdict.Case{}
	}
	return report.Section7(h.coverage.statuses, h.coverage.rows, h.features, results)
}
