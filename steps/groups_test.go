package steps_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
)

// logoHeadline is the cause of every failure of a server whose products
// lack operator.logo.
const logoHeadline = "syncProducts answered without `data.products[].operator.logo` (required by openapi.yaml, §2.1)"

// TestFailuresLeadGroupedByCause runs the suite against a reference with
// two faults that change the shape of answers: the console summary,
// summary.json, junit.xml and report.html lead with one group per cause,
// the largest first, and the console prints each distinct failure once,
// its body indented and the missing field marked.
func TestFailuresLeadGroupedByCause(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultProductWithoutLogo, reference.FaultCustomerIDAsString)
	dir := t.TempDir()
	var out bytes.Buffer
	res := runOpts(t, steps.Options{BaseURL: srv.URL, Format: "pretty", Output: &out, ReportDir: dir, RequestTimeout: 5 * time.Second})
	groups := res.Summary.FailureGroups
	require.GreaterOrEqual(t, len(groups), 2)
	logo := 0
	total := 0
	for i, g := range groups {
		total += g.Count
		assert.Len(t, g.Scenarios, g.Count)
		if i > 0 {
			assert.GreaterOrEqual(t, groups[i-1].Count, g.Count, "the largest group first")
		}
	}
	for _, sc := range res.Summary.Scenarios {
		if sc.Cause != nil && sc.Cause.Field == "data.products[].operator.logo" {
			logo++
		}
	}
	assert.Equal(t, res.Failed, total, "every failed scenario is in one group")
	assert.Equal(t, logoHeadline, groups[0].Headline)
	assert.Equal(t, logo, groups[0].Count)
	assert.Contains(t, groups[1].Headline, "`data.customer.id`")

	console := out.String()
	summary := console[strings.LastIndex(console, "Partner Commerce API v2 conformance"):]
	table := strings.Index(summary, "\narea ")
	for _, g := range groups {
		at := strings.Index(summary, g.Title())
		assert.True(t, at >= 0 && at < table, "the summary leads with %q", g.Title())
	}
	assert.Equal(t, len(groups), strings.Count(console, "found: "), "each distinct failure is printed once")
	assert.Contains(t, console, `"operator": {   ◀ missing required property "logo"`, "the body is indented and marked")

	var sum report.Summary
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, groups, sum.FailureGroups)
	assert.Less(t, bytes.Index(data, []byte(`"failure_groups"`)), bytes.Index(data, []byte(`"scenarios"`)))

	assertJUnitMessagesAreGroups(t, filepath.Join(dir, "junit.xml"), groups)

	page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(page), `<div id="failure-groups">`)
	require.True(t, ok, "the page leads with the groups")
	block, _, _ = strings.Cut(block, "</div>")
	first := html.EscapeString(strings.ReplaceAll(groups[0].Title(), "`data.products[].operator.logo`", "\x00"))
	first = strings.ReplaceAll(first, "\x00", "<code>data.products[].operator.logo</code>")
	assert.Contains(t, block, "<summary>"+first+"</summary>")
	assert.Equal(t, res.Failed, strings.Count(block, "<li><a href="), "every failed scenario is linked under its cause")
	assert.Equal(t, len(groups), strings.Count(block, `<pre class="reason">`), "each cause shows its failure once")
}

// assertJUnitMessagesAreGroups: the message of every <failure> of the
// JUnit file at path is the title of one of groups.
func assertJUnitMessagesAreGroups(t *testing.T, path string, groups []report.FailureGroup) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var ju struct {
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &ju))
	titles := map[string]bool{}
	for _, g := range groups {
		titles[g.Title()] = true
	}
	n := 0
	for _, s := range ju.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				n++
				assert.True(t, titles[c.Failure.Message], "junit failure message %q is a group's title", c.Failure.Message)
			}
		}
	}
	assert.Positive(t, n)
}
