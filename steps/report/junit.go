package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/partnercommerce/conformance/internal/gherkin"
)

// The JUnit XML that Jenkins, GitLab and GitHub read: one testsuite per
// feature, one testcase per scenario (classname: the feature), a skipped
// scenario as one <skipped message>, a failure with its group (how many
// scenarios failed on its cause, and the cause) in the message and its
// text in the body, an undefined step as an <error>, warnings as
// properties and system-out.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr"`
		File      string      `xml:"file,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name       string           `xml:"name,attr"`
		Classname  string           `xml:"classname,attr"`
		File       string           `xml:"file,attr,omitempty"`
		Line       int              `xml:"line,attr,omitempty"`
		Time       string           `xml:"time,attr"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Skipped    *junitSkipped    `xml:"skipped,omitempty"`
		Failure    *junitFailure    `xml:"failure,omitempty"`
		Error      *junitFailure    `xml:"error,omitempty"`
		SystemOut  string           `xml:"system-out,omitempty"`
	}
	junitProperties struct {
		Properties []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",chardata"`
	}
)

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// WriteJUnit writes the JUnit XML of a run from its summary; idx, when not
// nil, names the features and orders them.
func WriteJUnit(w io.Writer, idx *gherkin.Index, sum Summary) error {
	names := map[string]string{}
	var order []string
	if idx != nil {
		for _, ff := range idx.Files {
			names[ff.URI] = ff.Name
			order = append(order, ff.URI)
		}
	}
	byFeature := map[string][]ScenarioResult{}
	for _, r := range sum.Scenarios {
		if _, ok := byFeature[r.Feature]; !ok && names[r.Feature] == "" {
			order = append(order, r.Feature)
		}
		byFeature[r.Feature] = append(byFeature[r.Feature], r)
	}
	titles := map[string]string{}
	for _, g := range GroupFailures(sum.Scenarios) {
		titles[g.key()] = g.Title()
	}
	out := junitSuites{Name: "Partner Commerce API v2 conformance", Time: seconds(sum.Seconds)}
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
			name = uri
		}
		suite := junitSuite{Name: name, Timestamp: stamp, File: uri}
		var total float64
		for _, r := range results {
			total += r.Seconds
			tc := suite.add(r, name, uri, titles[causeOf(r).key()])
			suite.Cases = append(suite.Cases, tc)
		}
		suite.Tests = len(suite.Cases)
		suite.Time = seconds(total)
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Errors += suite.Errors
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// add counts result r of feature uri (named name) in the suite and returns
// its test case: its outcome (a failure's message is the title of its
// group), its warnings as properties and system-out, and its line (an
// outline's example row).
func (suite *junitSuite) add(r ScenarioResult, name, uri, group string) junitCase {
	tc := junitCase{Name: r.Name, Classname: name, File: uri, Time: seconds(r.Seconds)}
	switch r.Status {
	case StatusSkipped:
		tc.Skipped = &junitSkipped{Message: r.Reason}
		suite.Skipped++
	case StatusFailed:
		tc.Failure = &junitFailure{Message: group, Type: "failed", Body: r.Reason}
		suite.Failures++
	case StatusPassed:
	default:
		tc.Error = &junitFailure{Message: group, Type: r.Status, Body: r.Reason}
		suite.Errors++
	}
	if len(r.Warnings) > 0 {
		tc.Properties = &junitProperties{}
		var lines []string
		for _, wn := range r.Warnings {
			tc.Properties.Properties = append(tc.Properties.Properties,
				junitProperty{Name: "warning", Value: fmt.Sprintf("reading %s: %s", wn.Reading, strings.TrimSpace(wn.Detail))})
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
