package live_test

import (
	"fmt"
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

// TestPrometheusScrapesTheRun: a real Prometheus scrapes a scripted run's
// metrics every second; its request count and p99s (histogram_quantile)
// agree with the run's figures within the histogram's bucket width, and
// every panel of the Grafana dashboard returns data.
func TestPrometheusScrapesTheRun(t *testing.T) {
	promtest.Bin(t)
	run := runScripted(t, runLength())
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
	for _, h := range []struct {
		name    string
		bounds  []float64
		figures []time.Duration
	}{
		{"request_seconds", prometheus.DefBuckets, s.raw},                        // vegeta's raw latency
		{"loadtest_corrected_latency_seconds", live.LatencyBuckets, s.corrected}, // from the scheduled send
	} {
		want := quantile(h.figures, 0.99).Seconds()
		got := prom.Scalar(t, fmt.Sprintf("histogram_quantile(0.99, sum by (le) (%s_bucket))", h.name))
		width := bucketWidth(h.bounds, want)
		assert.InDelta(t, want, got, width, "%s: p99 %.4fs in Prometheus, %.4fs in the run (bucket width %.4fs)", h.name, got, want, width)
		t.Logf("%s: p99 %.4fs in Prometheus, %.4fs in the run (bucket width %.4fs)", h.name, got, want, width)
	}
	promtest.CheckDashboard(t, prom, filepath.Join("..", "..", "deploy", "grafana", "loadtest.json"))
	promtest.Graph(t, prom, filepath.Join("..", "..", "docs", "prometheus.png"), "1m",
		"sum by (class) (rate(loadtest_answers_total[5s]))",
		"histogram_quantile(0.99, sum by (le, operation) (rate(loadtest_corrected_latency_seconds_bucket[5s])))")
}

// runLength is how long the run lasts: longer when its screenshot is
// taken, for a graph worth seeing.
func runLength() time.Duration {
	if os.Getenv(browsertest.EnvScreenshots) != "" {
		return 40 * time.Second
	}
	return 3 * time.Second
}
