package report_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// visibleScenarios counts the scenarios the reader sees.
const visibleScenarios = `Array.from(document.querySelectorAll(".scenario")).filter(e => e.offsetParent !== null).length`

// setFilter chooses value in the select id, as a reader does, and returns
// the number of scenarios then visible.
func setFilter(id, value string) string {
	return `(() => { const s = document.getElementById(` + strconv.Quote(id) + `); s.value = ` + strconv.Quote(value) +
		`; s.dispatchEvent(new Event("change")); return ` + visibleScenarios + `; })()`
}

// TestHTMLReportInABrowser opens the page of a full run in
// headless Chromium: no console error, the verdict, the counts and the
// section 7 matrix are visible and equal to summary.json, and the filters
// show exactly the scenarios they select. Screenshots are saved under the
// test's temporary directory (and under docs/ with $CONFORMANCE_SCREENSHOTS).
func TestHTMLReportInABrowser(t *testing.T) {
	browsertest.Need(t)
	dir := stepstest.FullRun(t).Dir
	var sum report.Summary
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))

	p := browsertest.Open(t, filepath.Join(dir, report.FileHTMLReport))
	assert.Empty(t, p.Errors(), "console errors")

	visible := func(sel string) bool {
		return browsertest.Eval[bool](t, p, `(() => { const e = document.querySelector(`+strconv.Quote(sel)+
			`); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; })()`)
	}
	for _, sel := range []string{"#verdict-text", "#count-passed", "#count-failed", "#matrix", "#filters", "#coverage-table"} {
		assert.True(t, visible(sel), "%s is visible", sel)
	}
	assert.Equal(t, "PASS: the target conforms", browsertest.Eval[string](t, p, `document.getElementById("verdict-text").innerText`))

	counts := browsertest.Eval[map[string]string](t, p, `Object.fromEntries(Array.from(document.querySelectorAll("#counts b")).map(b => [b.id, b.innerText]))`)
	assert.Equal(t, map[string]string{
		"count-total":                strconv.Itoa(len(sum.Scenarios)),
		"count-passed":               strconv.Itoa(sum.Totals.Passed),
		"count-passed_with_warnings": strconv.Itoa(sum.Totals.Warned),
		"count-failed":               strconv.Itoa(sum.Totals.Failed),
		"count-skipped":              strconv.Itoa(sum.Totals.Skipped),
		"count-undefined":            strconv.Itoa(sum.Totals.Undefined),
		"count-not_judged":           strconv.Itoa(sum.Totals.NotJudged),
	}, counts)

	type cells struct {
		Status    string `json:"status"`
		Operation string `json:"operation"`
		Message   string `json:"message"`
		Exercised string `json:"exercised"`
		Outcome   string `json:"outcome"`
	}
	rows := browsertest.Eval[[]cells](t, p, `Array.from(document.querySelectorAll("#matrix tr.row")).map(r => ({
		status: r.cells[1].innerText, operation: r.cells[2].innerText, message: r.cells[4].innerText,
		exercised: r.cells[5].innerText, outcome: r.cells[6].innerText}))`)
	require.Len(t, rows, len(sum.Section7))
	for i, want := range sum.Section7 {
		got := rows[i]
		msg := want.Message
		switch {
		case msg == "":
			msg = "not fixed by the document"
		case want.Prefix:
			msg = "a message beginning " + msg
		}
		exercised := map[bool]string{true: "yes", false: "no"}[want.Exercised]
		assert.Equal(t, cells{strconv.Itoa(want.Status), want.Operation, msg, exercised, want.Outcome}, got, "row %d", i)
	}

	total := len(sum.Scenarios)
	assert.Equal(t, total, browsertest.Eval[int](t, p, visibleScenarios))
	assert.Equal(t, sum.Totals.Passed-sum.Totals.Warned, browsertest.Eval[int](t, p, setFilter("f-outcome", verdict.StatusPassed)))
	assert.Equal(t, sum.Totals.Failed, browsertest.Eval[int](t, p, setFilter("f-outcome", verdict.StatusFailed)))
	assert.Equal(t, total, browsertest.Eval[int](t, p, setFilter("f-outcome", "")))
	area := sum.Areas["payments"]
	assert.Equal(t, area.Passed+area.Failed+area.Skipped+area.Undefined, browsertest.Eval[int](t, p, setFilter("f-area", "payments")))
	assert.Equal(t, total, browsertest.Eval[int](t, p, setFilter("f-area", "")))
	funded := 0
	for _, sc := range sum.Scenarios {
		if slices.Contains(sc.Tags, "funded") {
			funded++
		}
	}
	require.Positive(t, funded)
	assert.Equal(t, funded, browsertest.Eval[int](t, p, setFilter("f-tag", "funded")))
	shown := browsertest.Eval[string](t, p, `document.getElementById("shown").innerText`)
	assert.True(t, strings.HasPrefix(shown, strconv.Itoa(funded)+" of "), shown)
	assert.Equal(t, total, browsertest.Eval[int](t, p, setFilter("f-tag", "")))
	assert.Empty(t, p.Errors(), "console errors after filtering")

	png := browsertest.Screenshot(t, p, "conformance-report.png", false)
	browsertest.SaveForDocs(t, filepath.Join("..", "..", "docs", "conformance-report.png"), png)
}

// TestHTMLReportOfFailuresInABrowser opens the page of a run against a
// reference whose products lack operator.logo and whose profile gives
// customer.id as a string: the page leads with one group per cause, the
// largest first, each showing its failure once with the broken field
// marked in the body, its scenarios folded under it. The screenshot is the
// README's (docs/conformance-failures.png with $CONFORMANCE_SCREENSHOTS).
func TestHTMLReportOfFailuresInABrowser(t *testing.T) {
	browsertest.Need(t) // before the run
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultProductWithoutLogo, reference.FaultCustomerIDAsString)
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{BaseURL: srv.URL, Profile: profiles.Reference(srv.URL),
		Format: "progress", Output: io.Discard, ReportDir: dir, RequestTimeout: 5 * time.Second})
	require.NoError(t, err)
	groups := res.Summary.FailureGroups
	require.Len(t, groups, 2)

	p := browsertest.Open(t, filepath.Join(dir, report.FileHTMLReport))
	assert.Empty(t, p.Errors(), "console errors")
	titles := browsertest.Eval[[]string](t, p, `Array.from(document.querySelectorAll("#failure-groups details.group > summary")).map(s => s.innerText)`)
	want := []string{}
	for _, g := range groups {
		want = append(want, strings.ReplaceAll(g.Title(), "`", ""))
	}
	assert.Equal(t, want, titles, "one group per cause, the largest first")
	assert.Equal(t, groups[0].Count, browsertest.Eval[int](t, p, `document.querySelectorAll("#failure-groups details.group")[0].querySelectorAll("details.scenarios li").length`))

	// The reader opens the largest group: its failure, the missing field marked.
	note := browsertest.Eval[string](t, p, `(() => {
  const g = document.querySelector("#failure-groups details.group");
  g.open = true;
  const m = g.querySelector("pre.reason mark.note");
  return m && m.getBoundingClientRect().height > 0 ? m.innerText : "";
})()`)
	assert.Equal(t, `◀ missing required property "logo"`, note)

	png := browsertest.ScreenshotOf(t, p, "#failure-groups", "conformance-failures.png")
	browsertest.SaveForDocs(t, filepath.Join("..", "..", "docs", "conformance-failures.png"), png)
}
