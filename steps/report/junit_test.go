package report_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/steps/report"
)

// The JUnit structure Jenkins, GitLab and GitHub read (their parsers look
// at these elements and attributes), written here independently of the
// writer's own types.
type (
	jTestsuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []jTestsuite `xml:"testsuite"`
	}
	jTestsuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []jTestcase `xml:"testcase"`
	}
	jTestcase struct {
		Name       string `xml:"name,attr"`
		Classname  string `xml:"classname,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Skipped []struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		Failures []struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Errors []struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr"`
		} `xml:"error"`
		SystemOut string `xml:"system-out"`
	}
)

// TestJUnitAgreesWithSummary: every count of junit.xml, read as
// CI systems read it, equals summary.json's; a skipped scenario is one
// <skipped message>, a failure carries its group in message and its report in the body, every
// testcase has a classname.
func TestJUnitAgreesWithSummary(t *testing.T) {
	t.Parallel()
	_, dir, _ := reportRun(t)
	var sum report.Summary
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	data, err = os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var ju jTestsuites
	require.NoError(t, xml.Unmarshal(data, &ju))

	tot := sum.Totals
	assert.Equal(t, tot.Passed+tot.Failed+tot.Skipped+tot.Undefined, ju.Tests, "tests")
	assert.Equal(t, tot.Failed, ju.Failures, "failures")
	assert.Equal(t, tot.Skipped, ju.Skipped, "skipped")
	assert.Equal(t, tot.Undefined, ju.Errors, "errors")

	var titles []string
	for _, g := range sum.FailureGroups {
		titles = append(titles, g.Title())
	}
	var cases, failures, skipped int
	for _, s := range ju.Suites {
		assert.Len(t, s.Cases, s.Tests, s.Name)
		var f, sk int
		for _, c := range s.Cases {
			assert.NotEmpty(t, c.Classname, c.Name)
			assert.Equal(t, s.Name, c.Classname, "classname is the feature")
			assert.LessOrEqual(t, len(c.Skipped)+len(c.Failures)+len(c.Errors), 1, "one outcome per testcase: %s", c.Name)
			for _, e := range c.Errors {
				assert.NotEqual(t, "skipped", e.Type, "a skip is never an error: %s", c.Name)
			}
			if len(c.Skipped) == 1 {
				sk++
				assert.Contains(t, c.Skipped[0].Message, "profile lacks funded_customer.token")
			}
			if len(c.Failures) == 1 {
				f++
				assert.Contains(t, titles, c.Failures[0].Message, "the message is the title of the failure's group")
				assert.Contains(t, c.Failures[0].Body, "expected:", "the failure text is the body")
			}
		}
		assert.Equal(t, s.Failures, f, s.Name)
		assert.Equal(t, s.Skipped, sk, s.Name)
		cases += len(s.Cases)
		failures += f
		skipped += sk
	}
	assert.Equal(t, ju.Tests, cases)
	assert.Equal(t, tot.Failed, failures)
	assert.Equal(t, tot.Skipped, skipped)
	assert.Len(t, sum.Scenarios, cases)
}
