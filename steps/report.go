package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/profiles"
)

// The status of a scenario (written in internal/contract, which the
// generated mode shares).
const (
	StatusPassed    = contract.StatusPassed
	StatusFailed    = contract.StatusFailed
	StatusSkipped   = contract.StatusSkipped
	StatusUndefined = contract.StatusUndefined
)

// Warning is a reading a scenario's server did not follow.
type Warning = contract.Warning

// ScenarioResult is the outcome of one scenario.
type ScenarioResult struct {
	Name    string   `json:"name"`
	Feature string   `json:"feature"`
	Tags    []string `json:"tags"`
	Status  string   `json:"status"`
	// Reason is the failure report, or the profile keys a skipped scenario lacks.
	Reason string `json:"reason,omitempty"`
	// Warnings are the readings the server did not follow.
	Warnings []Warning `json:"warnings,omitempty"`
	// Advisory is set on a scenario that rests on a reading as a whole
	// (tag @reading): its failure is a warning, unless the run is strict.
	Advisory bool `json:"advisory,omitempty"`
	// Readings are the ids of the readings the scenario applied.
	Readings []string `json:"readings,omitempty"`
	// Location is file:line of the scenario (of the example row for a
	// scenario outline), as the runner accepts it to run it again.
	Location string `json:"location,omitempty"`
	// Seconds is how long the scenario ran.
	Seconds float64 `json:"seconds"`

	// steps are the steps that ran, for the console.
	steps []stepRecord
	// entry is the scenario in the catalog, or nil.
	entry *entry
	// notRun marks a skipped scenario the run's stop left unfinished or
	// unstarted; unansweredAt is when its last request got no answer.
	notRun       bool
	unansweredAt time.Time
}

// stepRecord is one step as it ran.
type stepRecord struct {
	text   string
	status string
	err    error
}

// noAnswer reports whether the scenario failed, or was not run to its end,
// because its last request got no answer.
func (r ScenarioResult) noAnswer() bool {
	return !r.unansweredAt.IsZero() && (r.Status == StatusFailed || r.notRun)
}

// outcomeWarned is how reports show a passed scenario that carries
// warnings; it is never a ScenarioResult.Status.
const outcomeWarned = "passed-with-warnings"

// outcome is the scenario's status as reports show it: a passed scenario
// with warnings is outcomeWarned.
func (r ScenarioResult) outcome() string {
	if r.Status == StatusPassed && len(r.Warnings) > 0 {
		return outcomeWarned
	}
	return r.Status
}

// Counts counts scenarios by outcome.
type Counts struct {
	Passed int `json:"passed"`
	// Warned counts the passed scenarios that carry warnings.
	Warned    int `json:"passed_with_warnings"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Undefined int `json:"undefined"`
}

func (c *Counts) add(r ScenarioResult) {
	switch r.Status {
	case StatusPassed:
		c.Passed++
		if len(r.Warnings) > 0 {
			c.Warned++
		}
	case StatusFailed:
		c.Failed++
	case StatusSkipped:
		c.Skipped++
	default:
		c.Undefined++
	}
}

// CapabilityReport says whether the profile unlocks a capability.
type CapabilityReport struct {
	Available bool     `json:"available"`
	Missing   []string `json:"missing,omitempty"`
	Counts    Counts   `json:"scenarios"`
}

// OperationCoverage lists the status codes openapi.yaml documents for an
// operation (default excluded) and those the run received.
type OperationCoverage struct {
	Documented []int `json:"documented"`
	Exercised  []int `json:"exercised"`
}

// Coverage is what the run exercised of the contract.
type Coverage struct {
	Operations map[string]OperationCoverage `json:"operations"`
	// Messages are the exact messages (and prefixes) a scenario asserted.
	Messages []string `json:"messages_asserted"`
}

// Summary is the machine-readable account of a run (summary.json).
type Summary struct {
	SuiteVersion string                      `json:"suite_version"`
	SpecSHA256   string                      `json:"spec_sha256"`
	Target       string                      `json:"target"`
	StartedAt    time.Time                   `json:"started_at"`
	Seconds      float64                     `json:"seconds"`
	Totals       Counts                      `json:"totals"`
	Areas        map[string]Counts           `json:"areas"`
	Capabilities map[string]CapabilityReport `json:"capabilities"`
	Coverage     Coverage                    `json:"coverage"`
	// Strict is set when warnings counted as failures.
	Strict bool `json:"strict"`
	// Levels counts the findings of the run by level.
	Levels Levels `json:"levels"`
	// Warnings lists each reading not followed once, with its scenarios.
	Warnings  []ReadingWarnings `json:"warnings"`
	Scenarios []ScenarioResult  `json:"scenarios"`
	// Section7 is the error tables of section 7, row by row, as exercised.
	Section7 []MatrixRow `json:"section7"`
	// Stopped is set when the run ended before its scenarios did: the
	// target stopped answering, or the run was interrupted.
	Stopped *Stopped `json:"stopped,omitempty"`
}

// Levels counts the findings of a run by level: failed scenarios (a
// document check failed, or, in a strict run, any check), and warnings (a
// reading a server did not follow).
type Levels struct {
	Failures int `json:"failures"`
	Warnings int `json:"warnings"`
	// Readings counts the distinct readings of the warnings.
	Readings int `json:"readings_not_followed"`
}

// coverage collects, across scenarios, the operations and statuses
// received and the messages asserted.
type coverage struct {
	mu       sync.Mutex
	statuses map[string]map[int]bool
	messages map[string]bool
	rows     map[string]bool // rowKey of each asserted (operation, status, message)
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
		c.rows[rowKey(ex.Operation, ex.Status, msg)] = true
	}
}

// areaTags are the tags of the areas of the document.
var areaTags = []string{"products", "customers", "payment-methods", "payments", "payment-status", "authentication", "limits"}

func (h *harness) result(target string, start time.Time, elapsed time.Duration) Result {
	h.mu.Lock()
	results := append([]ScenarioResult(nil), h.results...)
	h.mu.Unlock()
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Feature != results[j].Feature {
			return results[i].Feature < results[j].Feature
		}
		return results[i].Name < results[j].Name
	})

	sum := Summary{
		SuiteVersion: SuiteVersion,
		SpecSHA256:   version.SpecSHA256(),
		Target:       target,
		StartedAt:    start.UTC(),
		Seconds:      elapsed.Seconds(),
		Areas:        map[string]Counts{},
		Capabilities: map[string]CapabilityReport{},
		Scenarios:    results,
	}
	sum.Stopped = h.settleStop(results)
	for _, c := range profiles.Capabilities() {
		miss := h.profile.Missing(c)
		sum.Capabilities[string(c)] = CapabilityReport{Available: len(miss) == 0, Missing: miss}
	}
	sum.Strict = h.strict
	sum.Warnings = warningsByReading(results)
	for _, r := range results {
		sum.Levels.Warnings += len(r.Warnings)
		sum.Totals.add(r)
		for _, t := range r.Tags {
			if slices.Contains(areaTags, t) {
				c := sum.Areas[t]
				c.add(r)
				sum.Areas[t] = c
			}
			if cr, ok := sum.Capabilities[t]; ok {
				cr.Counts.add(r)
				sum.Capabilities[t] = cr
			}
		}
	}

	sum.Coverage.Operations = map[string]OperationCoverage{}
	h.coverage.mu.Lock()
	for op, codes := range contract.DocumentedStatuses() {
		var got []int
		for code := range h.coverage.statuses[op] {
			got = append(got, code)
		}
		sort.Ints(got)
		sum.Coverage.Operations[op] = OperationCoverage{Documented: codes, Exercised: got}
	}
	for m := range h.coverage.messages {
		sum.Coverage.Messages = append(sum.Coverage.Messages, m)
	}
	h.coverage.mu.Unlock()
	sort.Strings(sum.Coverage.Messages)

	sum.Levels.Failures = sum.Totals.Failed
	sum.Levels.Readings = len(sum.Warnings)
	if sum.Warnings == nil {
		sum.Warnings = []ReadingWarnings{}
	}

	return Result{Passed: sum.Totals.Passed, Warned: sum.Totals.Warned, Failed: sum.Totals.Failed,
		Skipped: sum.Totals.Skipped, Undefined: sum.Totals.Undefined, Summary: sum}
}

func writeSummary(path string, s Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// printSummary writes the human summary of a run.
func printSummary(w io.Writer, r Result) {
	s := r.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "\nPartner Commerce API v2 conformance — suite %s, spec sha256 %.12s…\n", s.SuiteVersion, s.SpecSHA256)
	fmt.Fprintf(&b, "target %s, %.1fs\n\n", s.Target, s.Seconds)
	fmt.Fprintf(&b, "%-18s %7s %7s %8s %10s\n", "area", "passed", "failed", "skipped", "undefined")
	for _, a := range areaTags {
		c := s.Areas[a]
		fmt.Fprintf(&b, "%-18s %7d %7d %8d %10d\n", a, c.Passed, c.Failed, c.Skipped, c.Undefined)
	}
	fmt.Fprintf(&b, "%-18s %7d %7d %8d %10d\n\n", "total", r.Passed, r.Failed, r.Skipped, r.Undefined)
	b.WriteString("capabilities:\n")
	for _, c := range profiles.Capabilities() {
		cr := s.Capabilities[string(c)]
		if cr.Available {
			fmt.Fprintf(&b, "  %-22s available (%d passed, %d failed)\n", c, cr.Counts.Passed, cr.Counts.Failed)
		} else {
			fmt.Fprintf(&b, "  %-22s SKIPPED: profile lacks %s\n", c, strings.Join(cr.Missing, ", "))
		}
	}
	exercised, documented := 0, 0
	for _, oc := range s.Coverage.Operations {
		documented += len(oc.Documented)
		for _, c := range oc.Exercised {
			if slices.Contains(oc.Documented, c) {
				exercised++
			}
		}
	}
	fmt.Fprintf(&b, "\ncoverage: %d operations, %d of %d documented status codes received, %d messages asserted\n",
		len(s.Coverage.Operations), exercised, documented, len(s.Coverage.Messages))
	for _, sc := range s.Scenarios {
		switch sc.Status {
		case StatusFailed, StatusUndefined:
			// The report itself is printed once, by the console or in the
			// junit and cucumber reports; here only where it is.
			loc := sc.Location
			if loc == "" {
				loc = sc.Feature
			}
			fmt.Fprintf(&b, "  %s: %s — %s\n", strings.ToUpper(sc.Status), loc, sc.Name)
		case StatusSkipped:
			if sc.notRun {
				continue // counted once, in the stop's banner
			}
			fmt.Fprintf(&b, "  SKIPPED: %s — %s: %s\n", sc.Feature, sc.Name, sc.Reason)
		}
	}
	writeWarnings(&b, s)
	writeSlowest(&b, s.Scenarios, 5)
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	if st := s.Stopped; st != nil {
		fmt.Fprintf(&b, "\n%s\n", st.Banner())
		if st.LastTransportError != "" {
			fmt.Fprintf(&b, "  last transport error: %s\n", st.LastTransportError)
		}
		verdict = "STOPPED"
		if st.Cause == StopInterrupted {
			verdict = "INTERRUPTED"
		}
		if r.Failed > 0 {
			verdict += " (with failures)"
		}
	}
	fmt.Fprintf(&b, "\nRESULT: %s: %s\n", verdict, summaryLine(r))
	_, _ = io.WriteString(w, b.String())
}

// summaryLine is the final count of a run: "N passed (W with warnings), F
// failed, S skipped", and the undefined scenarios when there are any.
func summaryLine(r Result) string {
	line := fmt.Sprintf("%d passed (%d with warnings), %d failed, %d skipped", r.Passed, r.Warned, r.Failed, r.Skipped)
	if r.Undefined > 0 {
		line += fmt.Sprintf(", %d undefined", r.Undefined)
	}
	return line
}

// writeWarnings lists each reading the target did not follow once, with
// its sentence and scenarios.
func writeWarnings(b *strings.Builder, s Summary) {
	if len(s.Warnings) == 0 {
		return
	}
	fmt.Fprintf(b, "\nwarnings: %d readings of the document not followed (not failures; --strict makes them failures; docs/conformance-readings.md):\n", len(s.Warnings))
	for _, w := range s.Warnings {
		fmt.Fprintf(b, "  WARNING reading %s: %s\n", w.Reading, w.Sentence)
		for _, sc := range w.Scenarios {
			fmt.Fprintf(b, "    in %s\n", sc)
		}
	}
}

// writeSlowest lists the n slowest scenarios that ran.
func writeSlowest(b *strings.Builder, results []ScenarioResult, n int) {
	ran := slices.DeleteFunc(slices.Clone(results), func(r ScenarioResult) bool { return r.Status == StatusSkipped })
	if len(ran) == 0 {
		return
	}
	sort.SliceStable(ran, func(i, j int) bool { return ran[i].Seconds > ran[j].Seconds })
	fmt.Fprintf(b, "\nslowest scenarios:\n")
	for _, r := range ran[:min(n, len(ran))] {
		loc := r.Location
		if loc == "" {
			loc = r.Feature
		}
		fmt.Fprintf(b, "  %6.2fs  %s  %s\n", r.Seconds, loc, r.Name)
	}
}

// printReportFiles ends the console with where the reports went.
func printReportFiles(w io.Writer, dir string) {
	if dir == "" {
		_, _ = io.WriteString(w, "reports: none written (--report-dir DIR writes report.html, junit.xml, cucumber.json, summary.json and rerun.txt)\n")
		return
	}
	page := filepath.Join(dir, FileHTMLReport)
	if abs, err := filepath.Abs(page); err == nil {
		page = abs
	}
	fmt.Fprintf(w, "reports: %s (open it in a browser); %s: junit.xml, cucumber.json, summary.json, %s\n", page, dir, RerunFile)
}
