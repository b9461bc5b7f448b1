package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/internal/promtest"
	"github.com/partnercommerce/conformance/loadtest/live"
)

// TestPrometheusScrapesALoadRun: a real Prometheus scrapes a load run's
// --prometheus-addr every second; the request count and the p99s it
// computes (histogram_quantile) agree with the run's report.json, within
// the histogram's bucket width for the p99s, and every panel of the
// Grafana dashboard under deploy/ returns data.
func TestPrometheusScrapesALoadRun(t *testing.T) {
	t.Parallel()
	prom, addr := promtest.StartAhead(t, "loadtest")
	dir := t.TempDir()
	out, stderr, err := runCLI(t, "--scenario", "mixed", "--rate", "100", "--duration", runLength().String(), "--out", dir,
		"--prometheus-addr", addr, "--min-success", "90", "--max-p99", "2s", "--quiet")
	requireNoFailure(t, out, stderr, err)
	assert.Contains(t, stderr, "live metrics on http://"+addr+"/metrics")

	var rep struct {
		Requests  int `json:"requests"`
		Expected  int `json:"expected"`
		Corrected struct {
			P99 time.Duration `json:"p99"`
		} `json:"latency_corrected"`
		Raw struct {
			P99 time.Duration `json:"p99"`
		} `json:"latency_raw"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Positive(t, rep.Requests)

	// The run waited for Prometheus's scrape after its report.
	require.Eventually(t, func() bool {
		count, judged := prom.Query(t, "sum(request_seconds_count)"), prom.Query(t, "loadtest_thresholds_judged")
		return len(count) == 1 && int(count[0].Value) == rep.Requests && len(judged) == 1 && judged[0].Value == 1
	}, 10*time.Second, 200*time.Millisecond, "prometheus never scraped the end of the run (%d requests in report.json)", rep.Requests)
	assert.InDelta(t, rep.Requests, prom.Scalar(t, "sum(loadtest_answers_total)"), 0)
	assert.InDelta(t, rep.Expected, prom.Scalar(t, `sum(loadtest_answers_total{class="expected"})`), 0)
	promtest.CheckQuantile(t, prom, "request_seconds", 0.99, prometheus.DefBuckets, rep.Raw.P99) // vegeta's, raw
	promtest.CheckQuantile(t, prom, "loadtest_corrected_latency_seconds", 0.99, live.LatencyBuckets, rep.Corrected.P99)
	promtest.CheckDashboard(t, prom, filepath.Join("..", "..", "deploy", "grafana", "loadtest.json"))
	promtest.Graph(t, prom, filepath.Join("..", "..", "docs", "prometheus.png"), "1m",
		"sum by (operation) (rate(loadtest_answers_total[5s]))",
		"histogram_quantile(0.99, sum by (le, operation) (rate(loadtest_corrected_latency_seconds_bucket[5s])))")
}

// runLength is how long the run lasts: longer when its screenshot is
// taken, for a graph worth seeing.
func runLength() time.Duration {
	if os.Getenv(browsertest.EnvScreenshots) != "" {
		return 45 * time.Second
	}
	return 4 * time.Second
}
