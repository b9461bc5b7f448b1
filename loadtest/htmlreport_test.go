package loadtest_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
)

// pageHas checks that page holds s, without printing the whole page.
func pageHas(tb testing.TB, page, s string) {
	tb.Helper()
	if !strings.Contains(page, s) {
		tb.Errorf("the page (%d bytes) lacks %q", len(page), s)
	}
}

// syntheticRun is a one-second run of ten payments, one of them
// answered 500, whose account was debited more than the ledger allows.
func syntheticRun(tb testing.TB) (*record.Run, *verdict.Verdicts) {
	tb.Helper()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := &record.Run{Meta: record.Meta{Settings: record.Settings{RunID: "run1", Scenario: "create", Shard: record.SingleShard, MaxWorkers: 4, MaxConnections: 4,
		Load: pacing.LoadProfile{Duration: time.Second}}, Target: "http://127.0.0.1:1",
		Began: start, Ended: start.Add(time.Second), Reconciled: true}}
	rec.Generator = record.Generator{Planned: 10, Sent: 10}
	hits := make([]record.HitResult, 10)
	for i := range hits {
		at := start.Add(time.Duration(i) * 100 * time.Millisecond)
		r := record.Result{Result: vegeta.Result{Attack: "create", Seq: uint64(i), Code: 200, Timestamp: at, Latency: time.Duration(i+1) * time.Millisecond},
			Scheduled: at, Op: "create", Expected: true, Allowed: true}
		if i == 9 {
			r.Code, r.Expected, r.Allowed, r.Error = 500, false, false, "500 Internal Server Error"
		}
		hits[i].Result = r
	}
	recordtest.Record(tb, rec, hits...)
	r := &verdict.Reconciliation{Requests: 10, IDs: 10, Created: 9,
		Accounts:   []verdict.AccountCheck{{Account: "tok-load-1", BalanceChange: 3000, BalanceMin: 2000, BalanceMax: 2000, Created: 9}},
		Violations: []verdict.Violation{{Invariant: verdict.InvBalance, Detail: "tok-load-1 was debited 3000, the ledger allows 2000"}},
		Counts:     map[string]int{verdict.InvBalance: 1}}
	return rec, &verdict.Verdicts{Reconciliation: r}
}

// TestHTMLShowsAFailedRun: the verdict, the failed threshold with its
// measured value, the reconciliation mismatch and its violation, the error
// set and three charts; nothing fetched, no script.
func TestHTMLShowsAFailedRun(t *testing.T) {
	t.Parallel()
	rec, v := syntheticRun(t)
	rep := report.BuildReport(rec, v, []report.Threshold{mustThreshold(t, "p99<=5ms"), mustThreshold(t, "errors<=1")})
	require.False(t, rep.Passed)
	var b bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&b))
	page := b.String()
	pageHas(t, page, `<p id="verdict-text">FAIL</p>`)
	pageHas(t, page, `<td><code>p99&lt;=5ms</code></td><td class="n">10.002ms</td><td><span class="bad">fail</span></td>`)
	pageHas(t, page, `<td><code>errors&lt;=1</code></td><td class="n">1</td><td><span class="ok">pass</span></td>`)
	pageHas(t, page, `<td><code>tok-load-1</code></td><td class="n">3,000</td><td class="n">2,000 – 2,000</td>`)
	pageHas(t, page, `<span class="bad">mismatch</span>`)
	pageHas(t, page, "tok-load-1 was debited 3000, the ledger allows 2000")
	pageHas(t, page, "500 Internal Server Error")
	assert.Equal(t, 3, strings.Count(page, `<svg class="chart"`))
	pageHas(t, page, `data-series="p99 corrected"`)
	pageHas(t, page, `data-series="p99 raw"`)
	pageHas(t, page, `data-series="500"`)
	assert.NotContains(t, page, "<script")
	assert.NotContains(t, page, "sent by shard", "one shard: no line per shard")
}

// TestHTMLShowsFaultsAndClasses: the faults of a nemesis in their table
// and shaded on every chart, the verdict's class lines in the banner, and
// the ids of each class folded beneath its line.
func TestHTMLShowsFaultsAndClasses(t *testing.T) {
	t.Parallel()
	rec, v := syntheticRun(t)
	start := rec.Meta.Began
	rec.Meta.Faults = []nemesis.Fault{
		{Step: 1, Name: "kill-9", Command: "kill -KILL 4242", Start: start.Add(300 * time.Millisecond), End: start.Add(320 * time.Millisecond)},
		{Step: 1, Name: "kill-9", Command: "kill -KILL 4243", Start: start.Add(700 * time.Millisecond), End: start.Add(710 * time.Millisecond), Error: "exit status 1"},
	}
	v.Reconciliation.Entries = []verdict.Entry{
		{Class: verdict.ClassLost, ID: "run1-0-1", Account: "tok-load-1", Detail: "created, then not found", At: start.Add(100 * time.Millisecond), Fault: 1},
		{Class: verdict.ClassLost, ID: "run1-0-2", Account: "tok-load-1", Detail: "created, then not found", At: start.Add(200 * time.Millisecond), Fault: 1},
	}
	rep := report.BuildReport(rec, v, nil)
	require.False(t, rep.Passed)
	var b bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&b))
	page := b.String()
	assert.Equal(t, 3*2, strings.Count(page, `<g class="fault">`), "each fault shaded on each of the three charts")
	pageHas(t, page, `<title>fault 1: kill-9, 300 ms to 320 ms</title>`)
	pageHas(t, page, `<td class="n">F2</td><td>kill-9</td><td><code>kill -KILL 4243</code></td><td class="n">700 ms</td><td class="n">710 ms</td><td><span class="bad">exit status 1</span></td>`)
	pageHas(t, page, `<ol id="findings"><li class="finding" data-class="lost-write"><p class="bad">2 created payments were lost: acknowledged as created, then payment status did not find them; 2 before or during fault 1 (kill-9 at 300 ms) (e.g. run1-0-1, run1-0-2)</p>`)
	pageHas(t, page, `<details class="id-class" data-class="lost-write"><summary><b>lost-write</b>: 2</summary>`)
	pageHas(t, page, `<td><code>run1-0-2</code></td><td><code>tok-load-1</code></td><td>created, then not found</td><td>F1</td>`)
	assert.NotContains(t, page, "<details open", "folded")
	pageHas(t, page, "fault kill-9 at 700 ms did not go as scheduled (exit status 1; see nemesis.log): the run did not test what was asked")
}

// TestHTMLOfAMergedRunInABrowser: two shards run
// against the reference and are merged; the merged page has a line per
// shard and, in headless Chromium, shows no console error, the verdict of
// report.json, the threshold table, the latency chart and the
// reconciliation table. Screenshots go to the test's temporary directory
// (and to docs/ with $CONFORMANCE_SCREENSHOTS).
func TestHTMLOfAMergedRunInABrowser(t *testing.T) {
	browsertest.Need(t) // before the runs
	t.Parallel()
	p := startReference(t)
	dirs := runShards(t, p, 2, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(40, 2*time.Second)))
	m, err := record.Merge(readAll(t, dirs), false)
	require.NoError(t, err)
	rep := judge(t, m, mustThreshold(t, "duplicate_debits<=0"), mustThreshold(t, "p99<=5s"))
	dir := t.TempDir()
	require.NoError(t, report.WriteArtifacts(dir, m, rep))

	data, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
	require.NoError(t, err)
	page := string(data)
	t.Logf("report.html: %d bytes for %d requests", len(data), rep.Requests)
	assert.Less(t, len(data), 1<<20)
	pageHas(t, page, `data-series="sent by shard 0"`)
	pageHas(t, page, `data-series="sent by shard 1"`)

	var fromJSON report.Report
	raw, err := os.ReadFile(filepath.Join(dir, report.FileReport))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &fromJSON))

	bp := browsertest.Open(t, filepath.Join(dir, report.FileHTML))
	assert.Empty(t, bp.Errors(), "console errors")
	want := map[bool]string{true: "PASS", false: "FAIL"}[fromJSON.Passed]
	if fromJSON.Incomplete != "" {
		want = "INCOMPLETE: " + fromJSON.Incomplete
	}
	assert.Equal(t, want, browsertest.Eval[string](t, bp, `document.getElementById("verdict-text").innerText`))
	for _, id := range []string{"verdict-text", "threshold-table", "chart-latency", "chart-rate", "chart-status", "reconciliation-table", "shard-table", "generator-table"} {
		assert.True(t, browsertest.Eval[bool](t, bp, `(() => { const e = document.getElementById(`+strconv.Quote(id)+
			`); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })()`), "%s is visible", id)
	}
	assert.Equal(t, len(fromJSON.Thresholds), browsertest.Eval[int](t, bp, `document.querySelectorAll("#threshold-table tr").length - 1`))
	require.NotNil(t, fromJSON.Reconciliation)
	assert.Equal(t, len(fromJSON.Reconciliation.Accounts), browsertest.Eval[int](t, bp, `document.querySelectorAll("#reconciliation-table tr").length - 1`))
	assert.Positive(t, browsertest.Eval[int](t, bp, `document.querySelectorAll("#chart-latency path.line").length`))

	// The whole page: verdict, thresholds, charts and reconciliation.
	png := browsertest.Screenshot(t, bp, "load-report.png", true)
	browsertest.SaveForDocs(t, filepath.Join("..", "docs", "load-report.png"), png)
}
