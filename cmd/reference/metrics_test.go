package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scrape reads the metrics at url and sums the samples of family name
// whose labels include want: counters' values, histograms' counts.
func scrape(t *testing.T, url, name string, want map[string]string) float64 {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }() // read whole below
	require.Equal(t, http.StatusOK, resp.StatusCode)
	families, err := new(expfmt.TextParser).TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	total := 0.0
	f, ok := families[name]
	if !ok {
		return 0
	}
metrics:
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
				continue metrics
			}
		}
		total += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
	}
	return total
}

// TestRunServesMetrics: --metrics-addr serves the requests by operation
// and status and, with --state, the journal's commits; no id or path as
// sent ends up in a label.
func TestRunServesMetrics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--state", t.TempDir()},
			func(string) string { return "" }, pw, io.Discard)
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "no output from run")
	metrics := strings.TrimPrefix(lines.Text(), "metrics on ")
	require.True(t, strings.HasPrefix(metrics, "http://"), lines.Text())
	require.True(t, lines.Scan(), "no output from run")
	base := strings.TrimPrefix(lines.Text(), "listening on ")
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	const payments = 5
	for i := range payments {
		code, body := call(t, base, http.MethodPost, "/client/v2/payment", "tok-nusantara-funded",
			fmt.Sprintf(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"metrics-%d"}`, i))
		require.Equal(t, http.StatusOK, code, "%v", body)
	}
	code, _ := call(t, base, http.MethodGet, "/client/v2/payment/status?partner_trx_id=metrics-0", "tok-nusantara-funded", "")
	require.Equal(t, http.StatusOK, code)
	code, _ = call(t, base, http.MethodGet, "/client/v2/nowhere/metrics-0", "tok-nusantara-funded", "")
	require.Equal(t, http.StatusNotFound, code)

	assert.InDelta(t, payments, scrape(t, metrics, "reference_requests_total", map[string]string{"operation": "createPayment", "code": "200"}), 0)
	assert.InDelta(t, 1, scrape(t, metrics, "reference_requests_total", map[string]string{"operation": "getPaymentStatus", "code": "200"}), 0)
	assert.InDelta(t, 1, scrape(t, metrics, "reference_requests_total", map[string]string{"operation": "other", "code": "404"}), 0)
	assert.InDelta(t, payments+2, scrape(t, metrics, "reference_request_duration_seconds", nil), 0)
	commits := scrape(t, metrics, "reference_journal_commit_seconds", nil)
	assert.GreaterOrEqual(t, commits, 1.0, "the payments were committed")
	assert.InDelta(t, commits, scrape(t, metrics, "reference_journal_commit_records", nil), 0)

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, metrics, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	text, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.NotContains(t, string(text), "metrics-0", "an id or a path as sent in a label")
	stop(t, cancel, done)
}
