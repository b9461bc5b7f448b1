package generative

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/junit"
	"github.com/partnercommerce/conformance/internal/readable"
)

// The files a generated run writes into a report directory, next to the
// suite's junit.xml and summary.json.
const (
	SummaryFile = "generated-summary.json"
	JUnitFile   = "generated-junit.xml"
)

// PrintProperty writes the outcome of one property: its warnings, each with
// the request that earned it, or its failure and shrunk reproduction.
func PrintProperty(w io.Writer, p PropertyResult) {
	mark := "ok  "
	switch {
	case p.Status == StatusSkipped:
		mark = "skip"
	case p.Status != StatusPassed:
		mark = "FAIL"
	case len(p.Warnings) > 0:
		mark = "warn"
	}
	fmt.Fprintf(w, "%s %s (%s)\n", mark, p.Name(), readable.Plural(p.Examples, "example", "examples"))
	for _, wn := range p.Warnings {
		fmt.Fprintf(w, "     %s\n", strings.ReplaceAll(wn.String(), "\n", "\n     "))
	}
	switch p.Status {
	case StatusPassed:
	case StatusSkipped:
		fmt.Fprintf(w, "     %s\n", p.Reason)
	default:
		fmt.Fprintf(w, "     %s\n     shrunk reproduction:\n", p.Failure)
		for _, l := range strings.Split(strings.TrimRight(p.Reproduction, "\n"), "\n") {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
}

// PrintSummary writes the counts of a run, the interruption if any, and the
// command that reproduces each failed property.
func PrintSummary(w io.Writer, res Result) {
	failed, skipped := res.Failed(), 0
	for _, p := range res.Properties {
		if p.Status == StatusSkipped {
			skipped++
		}
	}
	passed := len(res.Properties) - failed - skipped
	fmt.Fprintf(w, "\n%s: %d passed (%d with warnings), %d failed, %d not run; %s in %.1fs; seed %d\n",
		readable.Plural(len(res.Properties), "property", "properties"), passed, res.Warned(), failed, skipped,
		readable.Plural(res.Requests, "request", "requests"), res.Seconds, res.Seed)
	if res.Throttling.Any() {
		fmt.Fprintf(w, "throttling: %s\n", res.Throttling)
	}
	if res.Insecure != "" {
		fmt.Fprintln(w, res.Insecure)
	}
	if res.Interrupted != "" {
		fmt.Fprintf(w, "INTERRUPTED: %s; the properties not run to their end are skipped, none counted as failed\n", res.Interrupted)
	}
	if res.Stopped != "" {
		fmt.Fprintf(w, "STOPPED: %s; the properties not run to their end are skipped, none counted as failed\n", res.Stopped)
	}
	for _, p := range res.Properties {
		if p.Status == StatusFailed && p.Command != "" {
			fmt.Fprintf(w, "reproduce %q with:\n  %s\n", p.Name(), p.Command)
		}
	}
}

// WriteReports writes generated-summary.json and generated-junit.xml into dir.
func WriteReports(dir, target string, res Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	summary := struct {
		Target string `json:"target"`
		Result
	}{target, res}
	data, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, SummaryFile), append(data, '\n')); err != nil {
		return err
	}
	return writeJUnit(filepath.Join(dir, JUnitFile), res)
}

// writeJUnit writes generated-junit.xml: one testsuite, one testcase per
// property (a failure with its shrunk reproduction as its body), the seed
// and the requests sent as properties.
func writeJUnit(path string, res Result) error {
	s := junit.Suite{Name: "generated", Time: junit.Seconds(res.Seconds),
		Properties: &junit.Properties{Property: []junit.Property{{Name: "seed", Value: fmt.Sprint(res.Seed)}, {Name: "requests", Value: fmt.Sprint(res.Requests)}}}}
	for _, p := range res.Properties {
		c := junit.Case{Name: p.Property, Classname: "generated." + p.Operation}
		var out []string
		for _, w := range p.Warnings {
			out = append(out, w.String())
		}
		c.SystemOut = strings.Join(out, "\n")
		if p.Status == StatusSkipped {
			c.Skipped = &junit.Skipped{Message: p.Reason}
		} else if p.Status != StatusPassed {
			c.Failure = &junit.Failure{Message: p.Failure, Body: p.Reproduction}
		}
		s.Cases = append(s.Cases, c)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return junit.Write(w, junit.Report{Suites: []junit.Suite{s}}) })
}
