package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/loadtest/live"
)

// prometheusBin is the Prometheus server the test scrapes with: Debian's
// prometheus package (.ci/run installs it).
func prometheusBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CONFORMANCE_PROMETHEUS"); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus found ($CONFORMANCE_PROMETHEUS, or prometheus on PATH; Debian's prometheus package): the test against a real Prometheus did not run")
	}
	return p
}

// promServer is a Prometheus started for one test on loopback, scraping
// one target every second into a temporary directory.
type promServer struct {
	api promv1.API
	url string
}

func startPrometheus(t *testing.T, target string) *promServer {
	t.Helper()
	bin := prometheusBin(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: loadtest
    static_configs:
      - targets: [%q]
`, target), 0o644))
	// Prometheus takes no port 0: a free port is picked, and released for
	// it to take.
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	logPath := filepath.Join(dir, "prometheus.log")
	log, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()  // its exit status after the signal says nothing
		_ = log.Close() // written by Prometheus only
		if t.Failed() {
			b, _ := os.ReadFile(logPath) // best effort: the log helps, the failure stands
			t.Logf("prometheus log:\n%s", b)
		}
	})
	p := &promServer{url: "http://" + addr}
	ready := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"/-/ready", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close() // only the status is read
		return resp.StatusCode == http.StatusOK
	}
	require.Eventually(t, ready, 20*time.Second, 100*time.Millisecond, "prometheus did not get ready on %s", addr)
	client, err := api.NewClient(api.Config{Address: p.url})
	require.NoError(t, err)
	p.api = promv1.NewAPI(client)
	return p
}

// query evaluates q now and returns its samples.
func (p *promServer) query(t *testing.T, q string) model.Vector {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, _, err := p.api.Query(ctx, q, time.Now())
	require.NoError(t, err, q)
	vec, ok := v.(model.Vector)
	require.True(t, ok, "%s: %s is not a vector", q, v.Type())
	return vec
}

// scalar evaluates q, which must give one sample, now.
func (p *promServer) scalar(t *testing.T, q string) float64 {
	t.Helper()
	vec := p.query(t, q)
	require.Len(t, vec, 1, q)
	return float64(vec[0].Value)
}

// dashboardQueries are the PromQL queries of every panel of the Grafana
// dashboard under deploy/.
func dashboardQueries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana", "loadtest.json"))
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(b, &dash))
	out := map[string]string{}
	for _, p := range dash.Panels {
		for i, tg := range p.Targets {
			out[fmt.Sprintf("%s (%c)", p.Title, 'A'+i)] = tg.Expr
		}
	}
	require.NotEmpty(t, out)
	return out
}

func TestPrometheusScrapesTheRun(t *testing.T) {
	bin := prometheusBin(t)
	t.Logf("prometheus: %s", bin)
	run := runScripted(t, runLength())
	prom := startPrometheus(t, run.addr)
	// Prometheus applies its targets some seconds after it starts (its
	// discovery's and scrape manager's update period): the run starts
	// once the target has been scraped, so that rates over it have
	// samples before and after.
	require.Eventually(t, func() bool { return len(prom.query(t, `up{job="loadtest"} == 1`)) == 1 },
		20*time.Second, 200*time.Millisecond, "prometheus never scraped the metrics")
	run.start()
	s := run.wait()

	n := float64(s.requests)
	require.Eventually(t, func() bool {
		count, judged := prom.query(t, "sum(request_seconds_count)"), prom.query(t, "loadtest_thresholds_judged")
		return len(count) == 1 && float64(count[0].Value) == n && len(judged) == 1 && judged[0].Value == 1
	}, 15*time.Second, 200*time.Millisecond, "prometheus never scraped the end of the run")

	assert.InDelta(t, n, prom.scalar(t, "sum(loadtest_answers_total)"), 0)
	assert.InDelta(t, float64(s.expected), prom.scalar(t, `sum(loadtest_answers_total{class="expected"})`), 0)
	for _, h := range []struct {
		name    string
		bounds  []float64
		figures []time.Duration
	}{
		{"request_seconds", prometheus.DefBuckets, s.raw},                        // vegeta's raw latency
		{"loadtest_corrected_latency_seconds", live.LatencyBuckets, s.corrected}, // from the scheduled send
	} {
		want := quantile(h.figures, 0.99).Seconds()
		got := prom.scalar(t, fmt.Sprintf("histogram_quantile(0.99, sum by (le) (%s_bucket))", h.name))
		width := bucketWidth(h.bounds, want)
		assert.InDelta(t, want, got, width, "%s: p99 %.4fs in Prometheus, %.4fs in the run (bucket width %.4fs)", h.name, got, want, width)
		t.Logf("%s: p99 %.4fs in Prometheus, %.4fs in the run (bucket width %.4fs)", h.name, got, want, width)
	}

	for title, q := range dashboardQueries(t) {
		vec := prom.query(t, q)
		finite := 0
		for _, smp := range vec {
			if !math.IsNaN(float64(smp.Value)) {
				finite++
			}
		}
		assert.Positive(t, finite, "panel %q: %s returned no data (%d samples)", title, q, len(vec))
	}
	screenshot(t, prom)
}

// screenshot saves Prometheus's graph page of the run for the README
// (docs/prometheus.png) when $CONFORMANCE_SCREENSHOTS is set: the answers
// per second by class and the corrected p99 by operation.
func screenshot(t *testing.T, prom *promServer) {
	t.Helper()
	if os.Getenv(browsertest.EnvScreenshots) == "" {
		return
	}
	q := url.Values{}
	for i, expr := range []string{
		"sum by (class) (rate(loadtest_answers_total[5s]))",
		"histogram_quantile(0.99, sum by (le, operation) (rate(loadtest_corrected_latency_seconds_bucket[5s])))",
	} {
		g := fmt.Sprintf("g%d.", i)
		q.Set(g+"expr", expr)
		q.Set(g+"tab", "0") // the graph
		q.Set(g+"range_input", "1m")
	}
	page := browsertest.OpenURL(t, prom.url+"/graph?"+q.Encode())
	require.Eventually(t, func() bool {
		return browsertest.Eval[int](t, page, "document.querySelectorAll('.rickshaw_graph svg').length") >= 2
	}, 30*time.Second, 250*time.Millisecond, "the graphs were not drawn")
	time.Sleep(time.Second) // the legend and the axes
	png := browsertest.Screenshot(t, page, "prometheus.png", true)
	browsertest.SaveForDocs(t, filepath.Join("..", "..", "docs", "prometheus.png"), png)
}

// runLength is how long the run lasts: longer when its screenshot is
// taken, for a graph worth seeing.
func runLength() time.Duration {
	if os.Getenv(browsertest.EnvScreenshots) != "" {
		return 40 * time.Second
	}
	return 3 * time.Second
}
