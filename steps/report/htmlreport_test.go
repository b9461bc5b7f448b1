package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// maxReportBytes is the most a full run's page may weigh.
const maxReportBytes = 1 << 20

// TestHTMLReportOfAFullRun: the page of a full run against the reference is
// small, shows every scenario, the verdict, the counts of summary.json and
// every row of the section 7 matrix, and fetches nothing.
func TestHTMLReportOfAFullRun(t *testing.T) {
	full := stepstest.FullRun(t)
	res := full.Result
	data, err := os.ReadFile(filepath.Join(full.Dir, report.FileHTMLReport))
	require.NoError(t, err)
	page := string(data)
	t.Logf("report.html: %d bytes for %d scenarios", len(data), len(res.Summary.Scenarios))
	assert.Less(t, len(data), maxReportBytes)

	contains(t, page, `<p id="verdict-text">PASS: the target conforms</p>`)
	contains(t, page, `<b id="count-passed">`+strconv.Itoa(res.Passed)+`</b>`)
	contains(t, page, `<b id="count-failed">0</b>`)
	for _, sc := range res.Summary.Scenarios {
		contains(t, page, ">"+html.EscapeString(sc.Name)+"</a> <span class=\"badge b-passed\">", sc.Name)
		require.NotEmpty(t, sc.Location, sc.Name)
		contains(t, page, "<small><code>"+html.EscapeString(sc.Location)+"</code></small>", sc.Name)
	}
	assert.NotRegexp(t, regexp.MustCompile(`(src|href)="(https?:)?//`), page, "the page fetches nothing")
	// Without JavaScript every scenario shows and the filters, which need it, do not.
	assert.NotRegexp(t, regexp.MustCompile(`class="[^"]*\bhidden\b`), page, "nothing is hidden before the script runs")
	assert.Regexp(t, regexp.MustCompile(`#filters\{[^}]*display:none`), page[:min(len(page), 8000)])
	contains(t, page, ".js #filters{display:flex}")
	lacks(t, page, "sk-nusantara-7f3a9c", "secrets are masked")

	rows := res.Summary.Section7
	require.NotEmpty(t, rows)
	assert.Equal(t, len(rows), strings.Count(page, `<tr class="row"`))
	for _, r := range rows {
		// Against a correct server, every row a scenario quotes is exercised and passes.
		if len(r.Scenarios) > 0 {
			assert.True(t, r.Exercised, "%s %d %q is quoted by %v but not exercised", r.Operation, r.Status, r.Message, r.Scenarios)
			assert.Equal(t, verdict.StatusPassed, r.Outcome, "%s %d %q", r.Operation, r.Status, r.Message)
		}
	}
}

// TestHTMLReportShowsAFailure: a run against a faulty reference shows the
// verdict FAIL, the failed scenario with what was expected, the request and
// the response (secrets masked), and the section 7 row it checks as failed.
func TestHTMLReportShowsAFailure(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultDuplicateTrxAccepted)
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{
		BaseURL: srv.URL, Profile: profiles.Reference(srv.URL), Tags: "@payments", Format: "progress",
		Output: io.Discard, ReportDir: dir, RequestTimeout: 5 * time.Second,
	})
	require.NoError(t, err)
	require.Positive(t, res.Failed)
	data, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	page := string(data)

	contains(t, page, `<p id="verdict-text">FAIL: the target does not conform</p>`)
	contains(t, page, `<b id="count-failed">`+strconv.Itoa(res.Failed)+`</b>`)
	failed := regexp.MustCompile(`(?s)<article class="scenario failed" id="([^"]+)".*?</article>`).FindAllStringSubmatch(page, -1)
	require.Len(t, failed, res.Failed)
	for _, m := range failed {
		contains(t, page, `<li><a href="#`+m[1]+`">`, "the banner links the failure")
		contains(t, m[0], "request:")
		contains(t, m[0], "response:")
		contains(t, m[0], "X-Secret-Key: sk-n********")
		contains(t, m[0], `<li class="step-failed"><span class="mark" title="failed">failed</span>`, "the failed step carries its mark")
		contains(t, m[0], `<li class="step-passed"><span class="mark" title="passed">passed</span>`)
		contains(t, m[0], "    body:\n      {\n", "JSON bodies are pretty-printed")
	}
	lacks(t, page, "sk-nusantara-7f3a9c")

	var sum report.Summary
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &sum))
	var row *report.MatrixRow
	for i, r := range sum.Section7 {
		if r.Status == 409 && r.Operation == contract.OpCreatePayment {
			row = &sum.Section7[i]
		}
	}
	require.NotNil(t, row, "section 7 has the 409 row")
	assert.False(t, row.Exercised, "the faulty reference never answers 409")
	assert.Equal(t, verdict.StatusFailed, row.Outcome)
}

// TestHTMLReportOutcomes: each outcome is shown as such; warnings quote the
// reading apart from failures; a skipped scenario names the missing key.
func TestHTMLReportOutcomes(t *testing.T) {
	t.Parallel()
	const feature = "payment_methods.feature"
	name := "A cashier lists the payment methods with every documented field"
	cases := []struct {
		name    string
		result  verdict.Case
		verdict string
		want    []string
		notWant []string
	}{
		{"passed", verdict.Case{Status: verdict.StatusPassed}, "PASS: the target conforms",
			[]string{`class="scenario passed"`}, []string{"Warning —", "What was expected"}},
		{"passed with warnings", verdict.Case{Status: verdict.StatusPassed, Warnings: []contract.Warning{{Reading: "R9", Sentence: "§4.5 the quoted sentence", Detail: "the detail"}}},
			"PASS with warnings", []string{`class="scenario passed-with-warnings"`, "Warning — reading R9", "<q>§4.5 the quoted sentence</q>", "the detail"}, []string{"What was expected"}},
		{"failed", verdict.Case{Status: verdict.StatusFailed, Reason: "expected status 200\n  request:  GET /x"},
			"FAIL: the target does not conform", []string{`class="scenario failed"`, "What was expected", "expected status 200\n  request:  GET /x"}, []string{"Warning —"}},
		{"skipped", verdict.Case{Status: verdict.StatusSkipped, Reason: "the profile lacks funded_customer.token"},
			"PASS: the target conforms", []string{`class="scenario skipped"`, "Skipped: the profile lacks funded_customer.token"}, []string{"What was expected"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.result
			r.Feature, r.Name, r.Tags = feature, name, []string{"payment-methods"}
			sum := report.Summary{Target: "http://127.0.0.1:1", SuiteVersion: "test", Scenarios: []verdict.Case{r}}
			switch r.Status {
			case verdict.StatusFailed:
				sum.Totals.Failed = 1
			case verdict.StatusSkipped:
				sum.Totals.Skipped = 1
			default:
				sum.Totals.Passed = 1
				if len(r.Warnings) > 0 {
					sum.Totals.Warned = 1
				}
			}
			var b bytes.Buffer
			require.NoError(t, report.WriteHTMLReport(&b, stepstest.Features(t, features.FS), sum, profiles.Reference("http://127.0.0.1:1")))
			page := b.String()
			assert.True(t, strings.Contains(page, `<p id="verdict-text">`+tc.verdict), "verdict %q", tc.verdict)
			for _, w := range tc.want {
				contains(t, page, w)
			}
			for _, w := range tc.notWant {
				lacks(t, page, w)
			}
			assert.Equal(t, 1, strings.Count(page, `<article class="scenario`), "only the scenarios of the run are shown")
		})
	}
}

// contains checks that page holds s, without printing the whole page.
func contains(tb testing.TB, page, s string, msg ...any) {
	tb.Helper()
	if !strings.Contains(page, s) {
		tb.Errorf("the page (%d bytes) lacks %q %v", len(page), s, msg)
	}
}

// lacks checks that page does not hold s, without printing the whole page.
func lacks(tb testing.TB, page, s string, msg ...any) {
	tb.Helper()
	if i := strings.Index(page, s); i >= 0 {
		tb.Errorf("the page holds %q at byte %d %v", s, i, msg)
	}
}
