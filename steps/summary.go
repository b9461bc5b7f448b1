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

// result is the run's result, made once every scenario has ended: the
// scenarios' results in file order, counted by area and capability, with
// the coverage of the contract and the stop, if any.
func (h *harness) result(target string, start time.Time, elapsed time.Duration) Result {
	results := h.fmt.scenarios()
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Feature != results[j].Feature {
			return results[i].Feature < results[j].Feature
		}
		return results[i].Name < results[j].Name
	})

	sum := report.Summary{
		SuiteVersion: version.Suite,
		SpecSHA256:   version.SpecSHA256(),
		Target:       target,
		StartedAt:    start.UTC(),
		Seconds:      elapsed.Seconds(),
		Areas:        map[string]report.Counts{},
		Capabilities: map[string]report.Capability{},
		Scenarios:    results,
	}
	sum.Stopped = h.settleStop(results)
	sum.StoppedEndpoints = h.settleEndpoints(results)
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
	sum.Levels.Readings = len(sum.Warnings)
	if sum.Warnings == nil {
		sum.Warnings = []report.ReadingWarnings{}
	}

	return Result{Passed: sum.Totals.Passed, Warned: sum.Totals.Warned, Failed: sum.Totals.Failed,
		Skipped: sum.Totals.Skipped, Undefined: sum.Totals.Undefined, Summary: sum}
}

// matrix fills in section 7 for the results of a run, from what the run
// received and asserted.
func (h *harness) matrix(results []report.ScenarioResult) []report.MatrixRow {
	h.coverage.mu.Lock()
	defer h.coverage.mu.Unlock()
	if results == nil {
		results = []report.ScenarioResult{}
	}
	return report.Section7(h.coverage.statuses, h.coverage.rows, h.features, results)
}
