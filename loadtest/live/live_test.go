package live_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// sum adds up the samples of the family name in g whose labels include
// want: counters' values, histograms' and summaries' counts.
func sum(g []*dto.MetricFamily, name string, want map[string]string) float64 {
	total := 0.0
	for _, f := range g {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				total += m.GetCounter().GetValue()
			case m.Gauge != nil:
				total += m.GetGauge().GetValue()
			case m.Histogram != nil:
				total += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return total
}

// observer returns what shows m each result once a run's tally has
// counted it, as the collector does.
func observer(tb testing.TB, m *live.Metrics) func(*record.Result) {
	tb.Helper()
	rec, err := record.NewRecorder(tb.TempDir(), record.NewTally(time.Now(), time.Minute, lateAfter, false))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = rec.Close(&record.Run{}) })
	return func(r *record.Result) {
		rec.Add(&record.HitResult{Result: *r})
		m.Observe(r, rec.Tally)
	}
}

// thresholds parses exprs, which must parse.
func thresholds(t require.TestingT, exprs ...string) []report.Threshold {
	var out []report.Threshold
	for _, e := range exprs {
		th, err := report.ParseThreshold(e)
		require.NoError(t, err)
		out = append(out, th)
	}
	return out
}

func TestObserveCountsEveryResultUnderLowCardinalityLabels(t *testing.T) {
	t.Parallel()
	m, err := live.New(lateAfter, nil)
	require.NoError(t, err)
	var s script
	start := time.Now()
	observe := observer(t, m)
	for i := range 2000 {
		r := scripted(i, start.Add(time.Duration(i)*time.Millisecond))
		observe(&r)
		s.add(&r)
	}
	g, err := m.Registry().Gather()
	require.NoError(t, err)

	assert.InDelta(t, float64(s.requests), sum(g, "request_seconds", nil), 0, "vegeta's histogram counts every result")
	assert.InDelta(t, float64(s.requests), sum(g, "loadtest_answers_total", nil), 0)
	assert.InDelta(t, float64(s.expected), sum(g, "loadtest_answers_total", map[string]string{"class": live.ClassExpected}), 0)
	assert.InDelta(t, float64(s.allowed-s.expected), sum(g, "loadtest_answers_total", map[string]string{"class": live.ClassAllowed}), 0)
	assert.InDelta(t, float64(s.requests-s.allowed), sum(g, "loadtest_answers_total", map[string]string{"class": live.ClassUnexpected}), 0)
	assert.InDelta(t, float64(s.violations), sum(g, "loadtest_contract_violations_total", nil), 0)
	assert.InDelta(t, float64(s.uncertain), sum(g, "loadtest_uncertain_requests_total", nil), 0)
	assert.InDelta(t, float64(s.throttled), sum(g, "loadtest_throttled_answers_total", nil), 0)
	assert.InDelta(t, float64(s.gateway), sum(g, "loadtest_gateway_answers_total", nil), 0)
	assert.InDelta(t, float64(s.late), sum(g, "loadtest_late_sends_total", nil), 0)
	assert.InDelta(t, float64(s.requests), sum(g, "loadtest_corrected_latency_seconds", nil), 0)
	assert.Positive(t, s.violations*s.uncertain*s.late*s.throttled*s.gateway, "the script has every kind of result")

	series := 0
	for _, f := range g {
		for _, mt := range f.GetMetric() {
			series++
			for _, l := range mt.GetLabel() {
				assert.NotContains(t, l.GetValue(), "trx-", "%s{%s}: an id in a label", f.GetName(), l.GetName())
				assert.NotContains(t, l.GetValue(), "?", "%s{%s}: a query in a label", f.GetName(), l.GetName())
			}
		}
	}
	t.Logf("%d results, %d series", s.requests, series)
}

func TestThresholdsLiveThenJudged(t *testing.T) {
	t.Parallel()
	ths := thresholds(t, "success>=99", "contract_violations<=100", "p99<=50ms")
	m, err := live.New(lateAfter, ths)
	require.NoError(t, err)
	gather := func() []*dto.MetricFamily {
		g, err := m.Registry().Gather()
		require.NoError(t, err)
		return g
	}
	state := func(g []*dto.MetricFamily, name, expr string) float64 {
		return sum(g, name, map[string]string{"threshold": expr})
	}
	g := gather()
	assert.InDelta(t, 0, sum(g, "loadtest_threshold_passing", nil), 0, "nothing measured before the first result")

	var s script
	observe := observer(t, m)
	for i := range 500 {
		r := scripted(i, time.Now())
		observe(&r)
		s.add(&r)
	}
	g = gather()
	assert.InDelta(t, 0, sum(g, "loadtest_thresholds_judged", nil), 0)
	assert.InDelta(t, 0, state(g, "loadtest_threshold_passing", "success>=99"), 0, "the script's success is below 99%%")
	assert.InDelta(t, 100*float64(s.expected)/float64(s.requests), state(g, "loadtest_threshold_actual", "success>=99"), 1e-9)
	assert.InDelta(t, 1, state(g, "loadtest_threshold_passing", "contract_violations<=100"), 0)
	assert.InDelta(t, float64(s.violations), state(g, "loadtest_threshold_actual", "contract_violations<=100"), 0)
	assert.Len(t, series(g, "loadtest_threshold_passing"), 2, "p99 is the report's to judge")

	m.Judged([]report.ThresholdResult{
		{Threshold: ths[0], Actual: 80, Passed: false},
		{Threshold: ths[2], Actual: 12, Passed: true},
		{Threshold: thresholds(t, "duplicate_debits<=0")[0], NotMeasured: true},
	})
	g = gather()
	assert.InDelta(t, 1, sum(g, "loadtest_thresholds_judged", nil), 0)
	assert.InDelta(t, 1, state(g, "loadtest_threshold_passing", "p99<=50ms"), 0)
	assert.InDelta(t, 12, state(g, "loadtest_threshold_actual", "p99<=50ms"), 0)
	assert.InDelta(t, 80, state(g, "loadtest_threshold_actual", "success>=99"), 0)
	assert.Len(t, series(g, "loadtest_threshold_passing"), 3, "the report's thresholds replace the live ones")
	assert.Len(t, series(g, "loadtest_threshold_actual"), 2, "a metric not measured has no value")
}

func series(g []*dto.MetricFamily, name string) []*dto.Metric {
	for _, f := range g {
		if f.GetName() == name {
			return f.GetMetric()
		}
	}
	return nil
}

func TestServeAnswersOpenMetricsUntilClosed(t *testing.T) {
	t.Parallel()
	m, err := live.New(lateAfter, nil)
	require.NoError(t, err)
	m.InFlight(func() int64 { return 7 })
	m.Reconciling(func() int64 { return 3 }, 10)
	r := scripted(4, time.Now()) // a 200
	observer(t, m)(&r)
	srv, err := live.Serve(context.Background(), "127.0.0.1:0", m)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+srv.Addr()+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Contains(t, resp.Header.Get("Content-Type"), "application/openmetrics-text")
	text := string(body)
	for _, want := range []string{"loadtest_in_flight_requests 7", "loadtest_reconciliation_looked_up 3", "loadtest_reconciliation_to_look_up 10",
		`request_seconds_count{method="GET",status="200",url="http://127.0.0.1:1/client/v2/payment/status"} 1`, "# EOF"} {
		assert.Contains(t, text, want)
	}
	assert.True(t, strings.HasSuffix(text, "# EOF\n"))

	require.NoError(t, srv.Close(ctx))
	resp, err = http.DefaultClient.Do(req.Clone(ctx))
	if err == nil {
		_ = resp.Body.Close()
	}
	assert.Error(t, err, "closed")
}

// TestCloseWaitsForALastScrape: a scraper seen at a steady interval gets
// one more scrape after Close is called (the run's final figures), and
// Close waits for it no longer than one and a half intervals. The scraper
// here comes every minute (two scrapes, their interval stretched), so that
// Close would linger for maxLinger: returning well before that, it
// returned because the last scrape was served, however slow the machine.
func TestCloseWaitsForALastScrape(t *testing.T) {
	t.Parallel()
	m, err := live.New(lateAfter, nil)
	require.NoError(t, err)
	srv, err := live.Serve(context.Background(), "127.0.0.1:0", m)
	require.NoError(t, err)
	scrape := func(srv *live.Server) error {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+srv.Addr()+"/metrics", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		return errors.Join(resp.Body.Close(), func() error {
			if resp.StatusCode != http.StatusOK {
				return errors.New(resp.Status)
			}
			return nil
		}())
	}
	require.NoError(t, scrape(srv))
	require.NoError(t, scrape(srv))
	live.StretchScrapeInterval(srv, time.Minute)

	closed := make(chan time.Duration, 1)
	began := time.Now()
	go func() {
		assert.NoError(t, srv.Close(context.Background()))
		closed <- time.Since(began)
	}()
	select {
	case <-closed:
		t.Fatal("Close returned before the last scrape")
	default:
	}
	require.NoError(t, scrape(srv), "the last scrape after Close")
	took := <-closed
	assert.Less(t, took, live.MaxLinger/2, "Close returned once the last scrape was served, not after lingering %s", live.MaxLinger)
	assert.Error(t, scrape(srv), "closed")

	// No steady scraper (one scrape, no interval): Close does not wait.
	srv, err = live.Serve(context.Background(), "127.0.0.1:0", m)
	require.NoError(t, err)
	require.NoError(t, scrape(srv))
	began = time.Now()
	require.NoError(t, srv.Close(context.Background()))
	assert.Less(t, time.Since(began), live.MaxLinger/2, "Close did not linger %s", live.MaxLinger)
}

// TestLiveThresholdsAreTheReports: the thresholds' live state is the
// report's evaluation of the run's one count: after the last result, the
// live value and verdict of every threshold on a count (the shares of
// expected, allowed, server errors, uncertain and throttled answers, late
// sends, the counts of unexpected answers, contract violations and
// uncertain requests) are the report's on the same record. Before, the
// live metrics kept counts of their own and judged them with a copy of the
// report's comparison, and server_errors was not live.
func TestLiveThresholdsAreTheReports(t *testing.T) {
	t.Parallel()
	ths := thresholds(t, "success>=99", "allowed>=80", "server_errors<=1", "uncertain_pct<=5", "throttled_pct<=1", "late_sends<=10",
		"contract_violations<=100", "errors<=10", "uncertain<=3")
	m, err := live.New(lateAfter, ths)
	require.NoError(t, err)
	start := time.Now()
	rec, err := record.NewRecorder(t.TempDir(), record.NewTally(start, time.Minute, lateAfter, false))
	require.NoError(t, err)
	const n = 1000
	for i := range n {
		r := scripted(i, start.Add(time.Duration(i)*time.Millisecond))
		rec.Add(&record.HitResult{Result: r})
		m.Observe(&r, rec.Tally)
	}
	g, err := m.Registry().Gather()
	require.NoError(t, err)
	run := &record.Run{Meta: record.Meta{Settings: record.Settings{LateAfter: lateAfter, Shard: record.SingleShard}, Began: start},
		Generator: record.Generator{Sent: n}}
	require.NoError(t, rec.Close(run))
	rep := report.BuildReport(run, nil, ths)
	judged := 0
	for _, res := range rep.Thresholds {
		if !slices.ContainsFunc(ths, func(th report.Threshold) bool { return th.Expr == res.Expr }) {
			continue // a default threshold, which the live metrics do not hold the run to
		}
		judged++
		state := func(name string) float64 { return sum(g, name, map[string]string{"threshold": res.Expr}) }
		assert.InDelta(t, res.Actual, state("loadtest_threshold_actual"), 1e-9, res.Expr)
		assert.InDelta(t, b2f(res.Passed), state("loadtest_threshold_passing"), 0, res.Expr)
	}
	assert.Equal(t, len(ths), judged)
	assert.Len(t, series(g, "loadtest_threshold_passing"), len(ths), "every threshold on a count is live")
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
