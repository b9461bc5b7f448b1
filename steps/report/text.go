package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// PrintSummary writes the human summary of a run, as the console ends.
func PrintSummary(w io.Writer, s Summary) {
	var b strings.Builder
	fmt.Fprintf(&b, "\nPartner Commerce API v2 conformance — suite %s, spec sha256 %.12s…\n", s.SuiteVersion, s.SpecSHA256)
	fmt.Fprintf(&b, "target %s, %.1fs\n\n", s.Target, s.Seconds)
	if s.Insecure != "" {
		fmt.Fprintf(&b, "%s\n\n", s.Insecure)
	}
	writeGroups(&b, s.FailureGroups, "failed")
	writeGroups(&b, s.NotJudgedGroups, "not judged")
	writeAreas(&b, s)
	writeCapabilities(&b, s.Capabilities)
	writeCoverage(&b, s.Coverage)
	for _, sc := range s.Scenarios {
		// The failed scenarios lead the summary, by cause.
		if sc.Status == verdict.StatusSkipped && !sc.NotRun { // a scenario not run is counted once, in the stop's banner
			fmt.Fprintf(&b, "  SKIPPED: %s — %s: %s\n", sc.Feature, sc.Name, sc.Reason)
		}
	}
	writeJudges(&b, s.Judges)
	writeWarnings(&b, s)
	if th := s.Throttling; th.Any() {
		fmt.Fprintf(&b, "\nthrottling: %s\n", th)
	}
	writeSlowest(&b, s.Scenarios, 5)
	for _, e := range s.StoppedEndpoints {
		fmt.Fprintf(&b, "\nINCOMPLETE: %s\n", e.Banner())
		if e.LastTransportError != "" {
			fmt.Fprintf(&b, "  last transport error: %s\n", e.LastTransportError)
		}
	}
	if st := s.Stopped; st != nil {
		fmt.Fprintf(&b, "\n%s\n", st.Banner())
		if st.LastTransportError != "" {
			fmt.Fprintf(&b, "  last transport error: %s\n", st.LastTransportError)
		}
	}
	fmt.Fprintf(&b, "\nRESULT: %s\n", resultLine(s))
	_, _ = io.WriteString(w, b.String())
}

// resultLine is the run's last line after "RESULT: ": its verdict, what
// was not judged when that is why it is incomplete, and its counts.
func resultLine(s Summary) string {
	v := s.Verdict()
	counts := summaryLine(s.Totals) + judgedLine(s)
	if st := s.Stopped; st != nil && st.Cause == verdict.StopGateway {
		return fmt.Sprintf("%s: %s; %s", v, st.Reason, counts)
	}
	if v == verdict.VerdictIncomplete && len(s.StoppedEndpoints) == 0 {
		return fmt.Sprintf("%s: %s; %s", v, s.NotJudgedLine(), counts)
	}
	return fmt.Sprintf("%s: %s", v, counts)
}

// judgedLine splits a run's count by judge, with what each ran and the
// run's time: "; 127 scenarios, 15 properties (1,524 examples), 3 probe
// cases (80 waves) in 1.5 s". A judge not asked is left out, one the run
// stopped before is said not run; a run of the scenarios alone (a library
// run that lists no other judge) says nothing more than its counts.
func judgedLine(s Summary) string {
	if len(s.Judges) < 2 {
		return ""
	}
	var parts []string
	for _, j := range s.Judges {
		switch j.State {
		case verdict.JudgeNotAsked:
			continue
		case verdict.JudgeNotRun:
			parts = append(parts, j.Name+" not run")
			continue
		}
		part := verdict.CountCases(j.Counts.Total(), j.Name)
		if j.Name != verdict.JudgeScenarios && j.Unit != "" {
			part += fmt.Sprintf(" (%s %s)", readable.Thousands(j.Examples), j.Unit)
		}
		parts = append(parts, part)
	}
	took := time.Duration(s.Seconds * float64(time.Second))
	if took >= time.Second {
		took = took.Round(100 * time.Millisecond)
	} else {
		took = took.Round(time.Millisecond)
	}
	return fmt.Sprintf("; %s in %s", strings.Join(parts, ", "), readable.Duration(took))
}

// writeJudges writes each judge of the run on a line: what it ran of its
// budget, or why it did not run; then each case that ran fewer examples
// than planned, and why. A run of the scenarios alone (a library run with
// no other judge) has no judges to list.
func writeJudges(b *strings.Builder, judges []verdict.JudgeRun) {
	if len(judges) < 2 {
		return
	}
	b.WriteString("\njudges:\n")
	for _, j := range judges {
		fmt.Fprintf(b, "  %-10s %s\n", j.Name, j.Line())
		for _, c := range j.Cuts {
			fmt.Fprintf(b, "             %s\n", c)
		}
	}
}

// The summary prints only what has content: a run of one area (a single
// scenario, a feature file) has no table of areas, its total being the
// RESULT line, and a capability none of the run's scenarios needed is
// left out unless the profile lacks it.

// writeAreas writes the count of each area that ran a scenario, when
// more than one did.
func writeAreas(b *strings.Builder, s Summary) {
	var ran []string
	for _, a := range gherkin.Areas {
		if s.Areas[a] != (verdict.Counts{}) {
			ran = append(ran, a)
		}
	}
	if len(ran) < 2 {
		return
	}
	var t verdict.Counts // the scenarios', not the other judges' cases
	for _, a := range ran {
		c := s.Areas[a]
		t.Passed, t.Failed, t.Skipped, t.Undefined, t.NotJudged = t.Passed+c.Passed, t.Failed+c.Failed, t.Skipped+c.Skipped, t.Undefined+c.Undefined, t.NotJudged+c.NotJudged
	}
	// The column of scenarios not judged shows only when there are some.
	row := func(name string, c verdict.Counts) {
		fmt.Fprintf(b, "%-18s %7d %7d %8d %10d", name, c.Passed, c.Failed, c.Skipped, c.Undefined)
		if t.NotJudged > 0 {
			fmt.Fprintf(b, " %11d", c.NotJudged)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%-18s %7s %7s %8s %10s", "area", "passed", "failed", "skipped", "undefined")
	if t.NotJudged > 0 {
		fmt.Fprintf(b, " %11s", "not judged")
	}
	b.WriteString("\n")
	for _, a := range ran {
		row(a, s.Areas[a])
	}
	row("total", t)
	b.WriteString("\n")
}

// writeCapabilities writes each capability the profile lacks, and the
// counts of each the run's scenarios needed.
func writeCapabilities(b *strings.Builder, caps map[string]Capability) {
	var lines []string
	for _, c := range profiles.Capabilities() {
		cr := caps[string(c)]
		switch {
		case !cr.Available:
			lines = append(lines, fmt.Sprintf("  %-22s SKIPPED: profile lacks %s\n", c, strings.Join(cr.Missing, ", ")))
		case cr.Counts != (verdict.Counts{}):
			lines = append(lines, fmt.Sprintf("  %-22s available (%d passed, %d failed)\n", c, cr.Counts.Passed, cr.Counts.Failed))
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("capabilities:\n" + strings.Join(lines, "") + "\n")
}

// writeCoverage writes what the run exercised of the contract.
func writeCoverage(b *strings.Builder, c Coverage) {
	exercised, documented := 0, 0
	for _, oc := range c.Operations {
		documented += len(oc.Documented)
		for _, code := range oc.Exercised {
			if slices.Contains(oc.Documented, code) {
				exercised++
			}
		}
	}
	fmt.Fprintf(b, "coverage: %s, %d of %s received, %s asserted\n", readable.Plural(len(c.Operations), "operation", "operations"),
		exercised, readable.Plural(documented, "documented status code", "documented status codes"),
		readable.Plural(len(c.Messages), "message", "messages"))
}

// groupListed is how many scenarios of a failure group the summary names.
const groupListed = 5

// writeGroups lists the failed (or not judged) scenarios by cause, the
// largest group first: its count and cause on one line, then where its
// scenarios are (the failure itself is printed once, by the console, and
// in junit.xml, cucumber.json and the page).
func writeGroups(b *strings.Builder, groups []FailureGroup, outcome string) {
	if len(groups) == 0 {
		return
	}
	n, judge := 0, groups[0].Judge
	for _, g := range groups {
		n += g.Count
		if g.Judge != judge {
			judge = ""
		}
	}
	fmt.Fprintf(b, "%s %s, by cause (%s):\n", verdict.CountCases(n, judge), outcome, readable.Plural(len(groups), "cause", "causes"))
	for _, g := range groups {
		fmt.Fprintf(b, "  %s\n", g.Title())
		for _, sc := range g.Scenarios[:min(groupListed, len(g.Scenarios))] {
			fmt.Fprintf(b, "      %s\n", sc)
		}
		if more := len(g.Scenarios) - groupListed; more > 0 {
			line := fmt.Sprintf("      and %d more", more)
			if !g.NotJudged {
				line += fmt.Sprintf(" (%s lists every failed scenario)", gherkin.RerunFile)
			}
			b.WriteString(line + "\n")
		}
	}
	b.WriteString("\n")
}

// summaryLine is the final count of a run: "N passed (W with warnings), F
// failed, S skipped", and the undefined scenarios when there are any.
func summaryLine(t verdict.Counts) string {
	line := fmt.Sprintf("%d passed (%d with warnings), %d failed, %d skipped", t.Passed, t.Warned, t.Failed, t.Skipped)
	if t.Undefined > 0 {
		line += fmt.Sprintf(", %d undefined", t.Undefined)
	}
	if t.NotJudged > 0 {
		line += fmt.Sprintf(", %d not judged", t.NotJudged)
	}
	return line
}

// writeWarnings lists each reading the target did not follow once, with
// its sentence and scenarios.
func writeWarnings(b *strings.Builder, s Summary) {
	if len(s.Warnings) == 0 {
		return
	}
	fmt.Fprintf(b, "\nwarnings: %s of the document not followed (not failures; --strict makes them failures; docs/conformance-readings.md):\n",
		readable.Plural(len(s.Warnings), "reading", "readings"))
	for _, w := range s.Warnings {
		fmt.Fprintf(b, "  WARNING reading %s: %s\n", w.Reading, w.Sentence)
		for _, sc := range w.Scenarios {
			fmt.Fprintf(b, "    in %s\n", sc)
		}
	}
}

// writeSlowest lists the n slowest scenarios that ran (the scenarios of
// the feature files, not the other judges' cases).
func writeSlowest(b *strings.Builder, results []verdict.Case, n int) {
	ran := slices.DeleteFunc(slices.Clone(results), func(r verdict.Case) bool {
		return r.Status == verdict.StatusSkipped || r.Status == verdict.StatusNotJudged || (r.Judge != "" && r.Judge != verdict.JudgeScenarios)
	})
	if len(ran) < 2 {
		return // the slowest of one scenario is that scenario
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

// PrintReportFiles ends the console with where the report files went.
func PrintReportFiles(w io.Writer, dir string) {
	if dir == "" {
		_, _ = io.WriteString(w, "reports: none written (--report-dir DIR writes report.html, junit.xml, cucumber.json, summary.json and rerun.txt)\n")
		return
	}
	page := filepath.Join(dir, FileHTMLReport)
	if abs, err := filepath.Abs(page); err == nil {
		page = abs
	}
	fmt.Fprintf(w, "reports: %s (open it in a browser); %s: junit.xml, cucumber.json, summary.json, %s\n", page, dir, gherkin.RerunFile)
}
