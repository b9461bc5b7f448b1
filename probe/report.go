package probe

import (
	"fmt"
	"io"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/verdict"
)

// PrintCase writes the outcome of one case, as generative.PrintProperty
// writes a property's: a mark, the name and the waves run; then its
// warnings, the reason it was skipped or not judged, or its failure with
// the rule's sentence and the reproduction.
func PrintCase(w io.Writer, c CaseResult) {
	mark := "ok  "
	switch {
	case c.Status == verdict.StatusSkipped:
		mark = "skip"
	case c.Status == verdict.StatusNotJudged:
		mark = "NOT JUDGED"
	case c.Status != verdict.StatusPassed:
		mark = "FAIL"
	case len(c.Warnings) > 0:
		mark = "warn"
	}
	fmt.Fprintf(w, "%s %s (%s of %d, %s)\n", mark, c.Name(), readable.Plural(c.Waves, "wave", "waves"), c.Planned,
		readable.Plural(c.Payments, "payment", "payments"))
	indent := func(s string) {
		fmt.Fprintf(w, "     %s\n", strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n     "))
	}
	for _, wn := range c.Warnings {
		indent(wn.String())
	}
	switch c.Status {
	case verdict.StatusPassed:
		if c.Cut != "" {
			indent(c.Cut)
		}
	case verdict.StatusSkipped, verdict.StatusNotJudged:
		indent(c.Reason)
	default:
		indent(c.Failure)
		if c.Pointer != "" {
			indent("at " + c.Pointer)
		}
		if c.Sentence != "" {
			indent("the document: " + c.Sentence)
		}
		if c.Reproduction != "" {
			indent("reproduction (bash):")
			for _, l := range strings.Split(strings.TrimRight(c.Reproduction, "\n"), "\n") {
				fmt.Fprintf(w, "       %s\n", l)
			}
		}
	}
}

// PrintSummary writes the counts of a run, its throttling and why it
// stopped, if it did.
func PrintSummary(w io.Writer, res Result) {
	passed := len(res.Cases) - res.Failed() - res.Skipped() - res.NotJudged()
	fmt.Fprintf(w, "\n%s: %d passed (%d with warnings), %d failed, %d not judged, %d skipped; waves of %d; %s in %.1fs; seed %d\n",
		readable.Plural(len(res.Cases), "probe case", "probe cases"), passed, res.Warned(), res.Failed(), res.NotJudged(), res.Skipped(),
		res.WaveSize, readable.Plural(res.Requests, "request", "requests"), res.Seconds, res.Seed)
	if res.Throttling.Any() {
		fmt.Fprintf(w, "throttling: %s\n", res.Throttling)
	}
	if res.Insecure != "" {
		fmt.Fprintln(w, res.Insecure)
	}
	if res.Interrupted != "" {
		fmt.Fprintf(w, "INTERRUPTED: %s; the cases not run to their end are skipped, none counted as failed\n", res.Interrupted)
	}
	if res.Stopped != "" {
		fmt.Fprintf(w, "STOPPED: %s; the cases not run to their end are not judged, none counted as failed\n", res.Stopped)
	}
}
