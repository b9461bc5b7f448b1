package live_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/promtest"
	"github.com/partnercommerce/conformance/loadtest/live"
)

// TestPrometheusScrapesTheRun: a real Prometheus scrapes a scripted run's
// metrics every second; its request count and p99s (histogram_quantile)
// agree with the run's figures within the histogram's bucket width, and
// every panel of the Grafana dashboard returns data. The script has what a
// short run against the reference lacks: slow answers, server errors,
// unanswered requests, contract violations, late sends
// (cmd/loadtest's TestPrometheusScrapesALoadRun scrapes a real run).
func TestPrometheusScrapesTheRun(t *testing.T) {
	promtest.Bin(t)
	run := runScripted(t, 3*time.Second)
	prom := promtest.Start(t, "loadtest", run.addr)
	run.start()
	s := run.wait()

	n := float64(s.requests)
	require.Eventually(t, func() bool {
		count, judged := prom.Query(t, "sum(request_seconds_count)"), prom.Query(t, "loadtest_thresholds_judged")
		return len(count) == 1 && float64(count[0].Value) == n && len(judged) == 1 && judged[0].Value == 1
	}, 15*time.Second, 200*time.Millisecond, "prometheus never scraped the end of the run")

	assert.InDelta(t, n, prom.Scalar(t, "sum(loadtest_answers_total)"), 0)
	assert.InDelta(t, float64(s.expected), prom.Scalar(t, `sum(loadtest_answers_total{class="expected"})`), 0)
	promtest.CheckQuantile(t, prom, "request_seconds", 0.99, prometheus.DefBuckets, quantile(s.raw, 0.99)) // vegeta's, raw
	promtest.CheckQuantile(t, prom, "loadtest_corrected_latency_seconds", 0.99, live.LatencyBuckets, quantile(s.corrected, 0.99))
	promtest.CheckDashboard(t, prom, filepath.Join("..", "..", "deploy", "grafana", "loadtest.json"))
}
