package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/profiles"
)

// PrintSummary writes the human summary of a run, as the console ends.
func PrintSummary(w io.Writer, s Summary) {
	t := s.Totals
	var b strings.Builder
	fmt.Fprintf(&b, "\nPartner Commerce API v2 conformance — suite %s, spec sha256 %.12s…\n", s.SuiteVersion, s.SpecSHA256)
	fmt.Fprintf(&b, "target %s, %.1fs\n\n", s.Target, s.Seconds)
	fmt.Fprintf(&b, "%-18s %7s %7s %8s %10s\n", "area", "passed", "failed", "skipped", "undefined")
	for _, a := range gherkin.Areas {
		c := s.Areas[a]
		fmt.Fprintf(&b, "%-18s %7d %7d %8d %10d\n", a, c.Passed, c.Failed, c.Skipped, c.Undefined)
	}
	fmt.Fprintf(&b, "%-18s %7d %7d %8d %10d\n\n", "total", t.Passed, t.Failed, t.Skipped, t.Undefined)
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
			// The failure itself is printed once, by the console or in
			// junit.xml and cucumber.json; here only where it is.
			loc := sc.Location
			if loc == "" {
				loc = sc.Feature
			}
			fmt.Fprintf(&b, "  %s: %s — %s\n", strings.ToUpper(sc.Status), loc, sc.Name)
		case StatusSkipped:
			if sc.NotRun {
				continue // counted once, in the stop's banner
			}
			fmt.Fprintf(&b, "  SKIPPED: %s — %s: %s\n", sc.Feature, sc.Name, sc.Reason)
		}
	}
	writeWarnings(&b, s)
	writeSlowest(&b, s.Scenarios, 5)
	verdict := "PASS"
	if t.Failed > 0 || t.Undefined > 0 {
		verdict = "FAIL"
	}
	for _, e := range s.StoppedEndpoints {
		fmt.Fprintf(&b, "\nINCOMPLETE: %s\n", e.Banner())
		if e.LastTransportError != "" {
			fmt.Fprintf(&b, "  last transport error: %s\n", e.LastTransportError)
		}
		verdict = "INCOMPLETE"
		if t.Failed > 0 {
			verdict += " (with failures)"
		}
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
		if t.Failed > 0 {
			verdict += " (with failures)"
		}
	}
	fmt.Fprintf(&b, "\nRESULT: %s: %s\n", verdict, summaryLine(t))
	_, _ = io.WriteString(w, b.String())
}

// summaryLine is the final count of a run: "N passed (W with warnings), F
// failed, S skipped", and the undefined scenarios when there are any.
func summaryLine(t Counts) string {
	line := fmt.Sprintf("%d passed (%d with warnings), %d failed, %d skipped", t.Passed, t.Warned, t.Failed, t.Skipped)
	if t.Undefined > 0 {
		line += fmt.Sprintf(", %d undefined", t.Undefined)
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
