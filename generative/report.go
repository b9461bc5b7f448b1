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
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/verdict"
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
	case p.Status == verdict.StatusSkipped:
		mark = "skip"
	case p.Status == verdict.StatusNotJudged:
		mark = "N/J "
	case p.Status != verdict.StatusPassed:
		mark = "FAIL"
	case len(p.Warnings) > 0:
		mark = "warn"
	}
	fmt.Fprintf(w, "%s %s (%s)\n", mark, p.Name(), p.ExamplesRun())
	for _, wn := range p.Warnings {
		fmt.Fprintf(w, "     %s\n", strings.ReplaceAll(wn.String(), "\n", "\n     "))
	}
	switch p.Status {
	case verdict.StatusPassed:
	case verdict.StatusSkipped, verdict.StatusNotJudged:
		fmt.Fprintf(w, "     %s\n", p.Reason)
	default:
		fmt.Fprintf(w, "     %s\n     shrunk reproduction:\n", p.Failure)
		for _, l := range strings.Split(strings.TrimRight(p.Reproduction, "\n"), "\n") {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
}

// ExamplesRun is how many examples the property ran, and of how many
// planned when that is fewer, with why: "10 of 50 examples: the target
// throttled".
func (p PropertyResult) ExamplesRun() string {
	if p.Cut == "" {
		return readable.Plural(p.Examples, "example", "examples")
	}
	return fmt.Sprintf("%d of %d examples: %s", p.Examples, p.Planned, p.Cut)
}

// PrintSummary writes the counts of a run, the interruption if any, and the
// command that reproduces each failed property.
func PrintSummary(w io.Writer, res Result) {
	failed, skipped, notJudged := res.Failed(), 0, res.NotJudged()
	for _, p := range res.Properties {
		if p.Status == verdict.StatusSkipped {
			skipped++
		}
	}
	passed := len(res.Properties) - failed - skipped - notJudged
	line := fmt.Sprintf("%d passed (%d with warnings), %d failed, %d not run", passed, res.Warned(), failed, skipped)
	if notJudged > 0 {
		line += fmt.Sprintf(", %d not judged", notJudged)
	}
	fmt.Fprintf(w, "\n%s: %s; %s in %.1fs; seed %d\n",
		readable.Plural(len(res.Properties), "property", "properties"), line,
		readable.Plural(res.Requests, "request", "requests"), res.Seconds, res.Seed)
	for _, p := range res.Properties {
		if p.Cut != "" {
			fmt.Fprintf(w, "%s: %s run\n", p.Name(), p.ExamplesRun())
		}
	}
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
	if res.Incomplete != "" {
		fmt.Fprintf(w, "INCOMPLETE: %s; the properties not run to their end are skipped, none counted as failed\n", res.Incomplete)
	} else if failed == 0 && notJudged > 0 && res.Stopped == "" && res.Interrupted == "" {
		fmt.Fprintf(w, "INCOMPLETE: %s not judged: %s\n", readable.Plural(notJudged, "property", "properties"), res.notJudgedWhy())
	}
	for _, p := range res.Properties {
		if p.Status == verdict.StatusFailed && p.Command != "" {
			fmt.Fprintf(w, "reproduce %q with:\n  %s\n", p.Name(), p.Command)
		}
	}
}

// notJudgedWhy says why the properties not judged were not: the page of
// the gateway that answered the first of them, or its reason.
func (res Result) notJudgedWhy() string {
	for _, p := range res.Properties {
		switch {
		case p.Status != verdict.StatusNotJudged:
		case p.Gateway != nil:
			return p.Gateway.Error()
		default:
			return p.Name() + ": " + p.Reason
		}
	}
	return ""
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
		switch p.Status {
		case verdict.StatusPassed:
		case verdict.StatusSkipped:
			c.Skipped = &junit.Skipped{Message: p.Reason}
		case verdict.StatusNotJudged:
			c.Skipped = &junit.Skipped{Message: "not judged: " + p.Reason}
		default:
			c.Failure = &junit.Failure{Message: p.Failure, Body: p.Reproduction}
		}
		s.Cases = append(s.Cases, c)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return junit.Write(w, junit.Report{Suites: []junit.Suite{s}}) })
}

// Reproduction is a failure of a run written as a feature file of the
// suite's replay steps, and the command that runs it against the target.
type Reproduction struct {
	// Property is the name of the property that failed.
	Property string
	// Path is the feature file; Run the command that runs it.
	Path, Run string
	// HAR is the file of the failing example's requests and answers, beside
	// the feature (generated-N.har), or "".
	HAR string
}

// WriteFeatures writes each failure of res that has a feature file into
// dir, as generated-N.feature, with its failing example's requests and
// answers beside it as generated-N.har (repro.WriteHAR: the secrets masked
// as in the console), and returns them with the command that runs each
// against the target of opts (its profile file and connection flags; none
// for the embedded reference), with --strict after a strict run (its
// failure may be a reading's).
func WriteFeatures(dir string, opts Options, res Result) ([]Reproduction, error) {
	var out []Reproduction
	for _, p := range res.Properties {
		if p.Feature == "" {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("generated-%d.feature", len(out)+1))
		if err := atomicfile.WriteBytes(path, []byte(p.Feature)); err != nil {
			return out, err
		}
		run := []string{"conformance"}
		if opts.Strict {
			run = append(run, "--strict")
		}
		if opts.ProfilePath != "" {
			run = append(append(run, "--target", shellWord(opts.Profile.BaseURL), "--profile", shellWord(opts.ProfilePath)), opts.Conn.Args()...)
		}
		r := Reproduction{Property: p.Name(), Path: path, Run: strings.Join(append(run, path), " ")}
		if len(p.exchanges) > 0 {
			r.HAR = strings.TrimSuffix(path, ".feature") + ".har"
			if err := atomicfile.Write(r.HAR, func(w io.Writer) error { return repro.WriteHAR(w, "conformance generate", opts.Profile, p.exchanges) }); err != nil {
				return out, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// Verdict is property p as a case of the run: its failure with the shrunk
// reproduction and the command that repeats it, or why it was skipped or
// not judged.
func (p PropertyResult) Verdict() verdict.Case {
	c := verdict.Case{Name: p.Name(), Judge: verdict.JudgeGenerated, Feature: verdict.JudgeGenerated, Tags: []string{p.Operation}, Status: p.Status,
		Warnings: p.Warnings, Seconds: p.Seconds, Location: "", Reason: p.Reason}
	switch p.Status {
	case verdict.StatusFailed:
		var b strings.Builder
		b.WriteString(p.Failure)
		if p.Reproduction != "" {
			b.WriteString("\nshrunk reproduction:\n  " + strings.ReplaceAll(strings.TrimRight(p.Reproduction, "\n"), "\n", "\n  "))
		}
		if p.Command != "" {
			b.WriteString("\nreproduce: " + p.Command)
		}
		c.Reason = b.String()
		first, _, _ := strings.Cut(p.Failure, "\n")
		c.Cause = &verdict.Cause{Operation: p.Operation, Check: p.Property, Headline: first}
		if cause, ok := verdict.ErrorCause(p.Operation, p.Broke); ok {
			if cause.Field == "" {
				cause.Headline = first
			}
			c.Cause = &cause
		}
	case verdict.StatusNotJudged:
		c.Cause = &verdict.Cause{Operation: p.Operation, Check: p.Property, Expected: p.Cut,
			Headline: fmt.Sprintf("%s: %s", p.Name(), p.Reason)}
		if p.Gateway != nil {
			cause := verdict.GatewayCause(*p.Gateway)
			c.Cause = &cause
		}
	case verdict.StatusSkipped:
		c.NotRun = true
	}
	return c
}
