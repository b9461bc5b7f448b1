package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/junit"
	"github.com/partnercommerce/conformance/verdict"
)

// WriteJUnit writes the JUnit XML of a run from its summary: one testsuite
// per feature (named and ordered by fts when it is not nil), one testcase
// per scenario (classname: the feature), a skipped scenario as one <skipped
// message>, a case not judged as an <error> naming its cause (and a run
// that is not a pass for another reason as one error case, verdictCase),
// the cases of
// the run's other judges as a testsuite per judge, a failure with its group (how many scenarios failed on its cause,
// and the cause) in the message and its text in the body, an undefined step
// as an <error>, warnings as properties and system-out.
func WriteJUnit(w io.Writer, fts *gherkin.Features, sum Summary) error {
	names := map[string]string{}
	var order []string
	if fts != nil {
		for _, f := range fts.Files {
			names[f.URI] = f.Name
			order = append(order, f.URI)
		}
	}
	byFeature := map[string][]verdict.Case{}
	for _, r := range sum.Scenarios {
		if _, ok := byFeature[r.Feature]; !ok && names[r.Feature] == "" {
			order = append(order, r.Feature)
		}
		byFeature[r.Feature] = append(byFeature[r.Feature], r)
	}
	titles := map[string]string{}
	for _, g := range GroupFailures(sum.Scenarios) {
		titles[g.Key()] = g.Title()
	}
	out := junit.Report{Name: "Partner Commerce API v2 conformance", Time: junit.Seconds(sum.Seconds)}
	stamp := sum.StartedAt.Format("2006-01-02T15:04:05")
	seen := map[string]bool{}
	for _, uri := range order {
		results := byFeature[uri]
		if len(results) == 0 || seen[uri] {
			continue
		}
		seen[uri] = true
		name := names[uri]
		if name == "" {
			name = verdict.JudgeTitle(uri) // the cases of another judge, under its name
		}
		suite := junit.Suite{Name: name, Timestamp: stamp, File: uri}
		var total float64
		for _, r := range results {
			total += r.Seconds
			suite.Cases = append(suite.Cases, junitCase(r, name, uri, titles[causeOf(r).Key()]))
		}
		suite.Time = junit.Seconds(total)
		out.Suites = append(out.Suites, suite)
	}
	if c, ok := verdictCase(sum); ok {
		out.Suites = append(out.Suites, junit.Suite{Name: "The run's verdict", Timestamp: stamp, File: "verdict", Cases: []junit.Case{c}})
	}
	return junit.Write(w, out)
}

// verdictCase is the test case of a run that was not a pass although none
// of its cases failed or was not judged (the target stopped answering, or
// stopped answering an endpoint; the run was interrupted): an error naming
// why, so that a CI test tab is not green for a run that judged less than
// it should. A run whose cases already say it (a failure, a case not
// judged) has none, nor has a run its user interrupted (its cases not
// run are skips).
func verdictCase(sum Summary) (junit.Case, bool) {
	v := sum.Verdict()
	t := sum.Totals
	if v == verdict.VerdictPass || v == verdict.VerdictInterrupted || t.Failed > 0 || t.Undefined > 0 || t.NotJudged > 0 {
		return junit.Case{}, false
	}
	why := sum.NotJudgedLine()
	switch {
	case sum.Stopped != nil:
		why = sum.Stopped.Banner()
	case len(sum.StoppedEndpoints) > 0:
		why = EndpointBanners(sum.StoppedEndpoints)
	}
	return junit.Case{Name: "the run's verdict: " + v, Classname: "verdict", File: "verdict",
		Error: &junit.Failure{Message: v + ": " + why, Type: strings.ToLower(v), Body: resultLine(sum)}}, true
}

// junitCase is the test case of result r of feature uri (named name): its
// outcome (a failure's message is the title of its group), its warnings as
// properties and system-out, and its line (an outline's example row).
func junitCase(r verdict.Case, name, uri, group string) junit.Case {
	tc := junit.Case{Name: r.Name, Classname: name, File: uri, Time: junit.Seconds(r.Seconds)}
	switch r.Status {
	case verdict.StatusSkipped:
		tc.Skipped = &junit.Skipped{Message: r.Reason}
	case verdict.StatusNotJudged:
		// JUnit knows no such outcome. A skip would leave a CI test tab
		// green for a run that is not a pass: it is an error (the test
		// could not be judged), whose message says why.
		tc.Error = &junit.Failure{Message: "not judged: " + causeOf(r).Headline, Type: verdict.StatusNotJudged, Body: r.Reason}
	case verdict.StatusFailed:
		tc.Failure = &junit.Failure{Message: group, Type: "failed", Body: r.Reason}
	case verdict.StatusPassed:
	default:
		tc.Error = &junit.Failure{Message: group, Type: r.Status, Body: r.Reason}
	}
	if len(r.Warnings) > 0 {
		tc.Properties = &junit.Properties{}
		var lines []string
		for _, wn := range r.Warnings {
			tc.Properties.Property = append(tc.Properties.Property, junit.Property{Name: "warning", Value: fmt.Sprintf("reading %s: %s", wn.Reading, strings.TrimSpace(wn.Detail))})
			lines = append(lines, wn.String())
		}
		tc.SystemOut = strings.Join(lines, "\n")
	}
	if r.Entry != nil {
		tc.Line = r.Entry.Line
		if r.Entry.Row > 0 {
			tc.Line = r.Entry.Row
		}
	}
	return tc
}
