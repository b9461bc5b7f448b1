// Package promtest starts a real Prometheus server for tests (Debian's
// prometheus package; a test without one is skipped, saying why), scraping
// one target every second on loopback into a temporary directory, and
// queries it through its HTTP API (client_golang's api/prometheus/v1).
package promtest

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
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
)

// EnvPrometheus names the Prometheus executable, overriding the search.
const EnvPrometheus = "CONFORMANCE_PROMETHEUS"

// Bin is the Prometheus server's executable; the test is skipped when
// there is none.
func Bin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(EnvPrometheus); p != "" {
		return p
	}
	p, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus found ($" + EnvPrometheus + ", or prometheus on PATH; Debian's prometheus package): the test against a real Prometheus did not run")
	}
	return p
}

// Server is a Prometheus started for one test.
type Server struct {
	api promv1.API
	URL string
}

// Start starts Prometheus scraping target (host:port, /metrics) every
// second under job, and returns once it has scraped it: Prometheus applies
// its targets some seconds after it starts (its discovery's and scrape
// manager's update period), so a run started after Start has samples
// before and after it. It stops with the test.
func Start(t *testing.T, job, target string) *Server {
	t.Helper()
	bin := Bin(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(config, fmt.Appendf(nil, `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: %q
    static_configs:
      - targets: [%q]
`, job, target), 0o644))
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
	s := &Server{URL: "http://" + addr}
	require.Eventually(t, s.ready, 20*time.Second, 100*time.Millisecond, "prometheus did not get ready on %s", addr)
	client, err := api.NewClient(api.Config{Address: s.URL})
	require.NoError(t, err)
	s.api = promv1.NewAPI(client)
	up := fmt.Sprintf("up{job=%q} == 1", job)
	require.Eventually(t, func() bool { return len(s.Query(t, up)) == 1 },
		20*time.Second, 200*time.Millisecond, "prometheus never scraped %s", target)
	return s
}

// StartAhead starts Prometheus scraping a free loopback address, returned,
// for a target that starts later (a load run serving its metrics): a
// placeholder answers there until Prometheus has scraped it once, then
// frees the address for the target.
func StartAhead(t *testing.T, job string) (s *Server, addr string) {
	t.Helper()
	Bin(t)
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	placeholder := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	})}
	served := make(chan error, 1)
	go func() { served <- placeholder.Serve(ln) }()
	s = Start(t, job, ln.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, placeholder.Shutdown(ctx))
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	return s, ln.Addr().String()
}

func (s *Server) ready() bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/-/ready", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close() // only the status is read
	return resp.StatusCode == http.StatusOK
}

// Query evaluates q now and returns its samples.
func (s *Server) Query(t *testing.T, q string) model.Vector {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, _, err := s.api.Query(ctx, q, time.Now())
	require.NoError(t, err, q)
	vec, ok := v.(model.Vector)
	require.True(t, ok, "%s: %s is not a vector", q, v.Type())
	return vec
}

// Scalar evaluates q, which must give one sample, now.
func (s *Server) Scalar(t *testing.T, q string) float64 {
	t.Helper()
	vec := s.Query(t, q)
	require.Len(t, vec, 1, q)
	return float64(vec[0].Value)
}

// CheckQuantile checks that the q quantile of the histogram name over the
// whole of what Prometheus holds (histogram_quantile, over the buckets'
// counters, not their rates), in seconds, is want within the width of the
// bucket (upper bounds, in seconds) that holds want: histogram_quantile
// interpolates inside a bucket.
func CheckQuantile(t *testing.T, s *Server, name string, q float64, bounds []float64, want time.Duration) {
	t.Helper()
	w := want.Seconds()
	got := s.Scalar(t, fmt.Sprintf("histogram_quantile(%g, sum by (le) (%s_bucket))", q, name))
	width := bucketWidth(bounds, w)
	assert.InDelta(t, w, got, width, "%s: quantile %g %.5fs in Prometheus, %.5fs in the run (bucket width %.4fs)", name, q, got, w, width)
	t.Logf("%s: quantile %g %.5fs in Prometheus, %.5fs in the run (bucket width %.4fs)", name, q, got, w, width)
}

// bucketWidth is the width of the bucket (upper bounds) that holds v;
// past the last bound, histogram_quantile answers the last bound.
func bucketWidth(bounds []float64, v float64) float64 {
	lower := 0.0
	for _, b := range bounds {
		if v <= b {
			return b - lower
		}
		lower = b
	}
	return v - lower
}

// CheckDashboard checks that every query of every panel of the Grafana
// dashboard at path returns data now: at least one sample that is a
// number.
func CheckDashboard(t *testing.T, s *Server, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
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
	queries := 0
	for _, p := range dash.Panels {
		for i, tg := range p.Targets {
			queries++
			vec := s.Query(t, tg.Expr)
			numbers := 0
			for _, smp := range vec {
				if !math.IsNaN(float64(smp.Value)) {
					numbers++
				}
			}
			assert.Positive(t, numbers, "panel %q (%c): %s returned no data (%d samples)", p.Title, 'A'+i, tg.Expr, len(vec))
		}
	}
	require.Positive(t, queries, "%s has no query", path)
	t.Logf("%s: %d queries, each returned data", path, queries)
}

// Graph saves Prometheus's graph page of exprs over the last range for the
// README, as docPath, when $CONFORMANCE_SCREENSHOTS is set (taken in
// headless Chromium: browsertest).
func Graph(t *testing.T, s *Server, docPath, rangeInput string, exprs ...string) {
	t.Helper()
	if os.Getenv(browsertest.EnvScreenshots) == "" {
		return
	}
	q := url.Values{}
	for i, expr := range exprs {
		g := fmt.Sprintf("g%d.", i)
		q.Set(g+"expr", expr)
		q.Set(g+"tab", "0") // the graph
		q.Set(g+"range_input", rangeInput)
	}
	page := browsertest.OpenURL(t, s.URL+"/graph?"+q.Encode())
	require.Eventually(t, func() bool {
		return browsertest.Eval[int](t, page, "document.querySelectorAll('.rickshaw_graph svg').length") >= len(exprs)
	}, 30*time.Second, 250*time.Millisecond, "the graphs were not drawn")
	// The page scrolls to the last expression's input as it loads, and
	// the fixed navigation bar would then sit over the first graph.
	browsertest.Eval[any](t, page, "window.scrollTo(0, 0)")
	time.Sleep(time.Second) // the legend and the axes
	png := browsertest.Screenshot(t, page, filepath.Base(docPath), true)
	browsertest.SaveForDocs(t, docPath, png)
}
