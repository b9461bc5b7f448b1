package steps_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// paymentsHang serves the reference with its email-not-validated fault,
// except that a payment and a payment status lookup never get an answer:
// the handler holds each until its client gives up. hung counts them.
func paymentsHang(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var hung atomic.Int64
	v := variants.Variant{Name: "payments hang", Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/client/v2/payment" || r.URL.Path == "/client/v2/payment/status" {
				hung.Add(1)
				_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client go
				<-r.Context().Done()
				return
			}
			next.ServeHTTP(w, r)
		})
	}}
	h, err := v.Handler(reference.FaultEmailNotValidated)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, &hung
}

// TestStuckEndpointDoesNotStallTheRun: when the payment endpoints stop
// answering while the rest of the target answers, the run stops sending
// them after a few requests in a row got no answer, instead of waiting out
// a timeout in every payment scenario: the scenarios that need them are not
// run (skipped, none failed), the summary and the console say which
// endpoints and how many scenarios, the run is a target error, and the
// other scenarios pass or fail as they would.
func TestStuckEndpointDoesNotStallTheRun(t *testing.T) {
	t.Parallel()
	url, hung := paymentsHang(t)
	var out bytes.Buffer
	const concurrency = 4
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(url), Concurrency: concurrency, Format: "progress", Output: &out, RequestTimeout: time.Second, ReportDir: dir,
	})
	assert.ErrorIs(t, err, steps.ErrTarget)
	assert.Nil(t, res.Summary.Stopped, "the run went on")

	var stopped []string
	for _, e := range res.Summary.StoppedEndpoints {
		stopped = append(stopped, e.Endpoint)
	}
	assert.Equal(t, []string{"GET /client/v2/payment/status", "POST /client/v2/payment"}, stopped)
	assert.LessOrEqual(t, hung.Load(), int64(2*2*concurrency), "a few requests waited out a timeout, not one per scenario")

	notRun := 0
	for _, sc := range res.Summary.Scenarios {
		switch {
		case sc.Status == verdict.StatusSkipped && strings.Contains(sc.Reason, "the target stopped answering "):
			notRun++
			assert.Regexp(t, `^not run( to its end)?: the target stopped answering (POST /client/v2/payment|GET /client/v2/payment/status)`, sc.Reason)
		case sc.Status == verdict.StatusFailed:
			assert.False(t, sc.NoAnswer(), "%s failed for want of an answer", sc.Name)
		}
	}
	assert.GreaterOrEqual(t, notRun, 20, "the payment scenarios were not run")
	total := 0
	for _, e := range res.Summary.StoppedEndpoints {
		total += e.NotRun
	}
	assert.Equal(t, notRun, total, "the banners count them")
	assert.Positive(t, res.Passed, "the other scenarios pass")
	failed := map[string]bool{}
	for _, sc := range res.Summary.Scenarios {
		failed[sc.Name] = sc.Status == verdict.StatusFailed
	}
	assert.True(t, failed["An email address that is not valid creates no account (no at sign)"], "and fail as they would")
	console := out.String()
	for _, line := range []string{"INCOMPLETE: the target stopped answering POST /client/v2/payment: 3 requests in a row got no answer", "RESULT: INCOMPLETE (with failures): "} {
		assert.True(t, strings.Contains(console, line), "the console says %q", line)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "INCOMPLETE: the target stopped answering GET /client/v2/payment/status: "), "the page says so")
	summary, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), `"endpoint": "POST /client/v2/payment"`)
}
