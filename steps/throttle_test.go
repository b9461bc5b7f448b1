package steps_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// rateLimitedServer serves the reference limited to 200 requests a second
// per secret key (reference --rate-limit 200) behind the throttling
// gateway of reference/variants, which throttles the first request of each
// operation (503, Retry-After: 0): a run is throttled whatever its speed
// (under the race detector the suite may stay under 200 a second), and a
// fast one meets the limit's 429 and Retry-After: 1 as well.
func rateLimitedServer(tb testing.TB) (url string, throttles *atomic.Int64) {
	tb.Helper()
	gateway := variants.Throttles()
	h, err := gateway.Handler()
	require.NoError(tb, err)
	return serveFunc(tb, httpapi.RateLimit(h, 200).ServeHTTP), gateway.Throttled
}

// TestSuiteWaitsOutARateLimit runs every scenario against a rate-limited
// reference (rateLimitedServer): every scenario passes; the run says how
// many requests were throttled and how long it waited, in summary.json, on
// the console and on the page; no throttled answer counts as a 429 or a
// 503 of the API.
func TestSuiteWaitsOutARateLimit(t *testing.T) {
	t.Parallel()
	base, served := rateLimitedServer(t)
	dir := t.TempDir()
	var out bytes.Buffer
	res := runOpts(t, steps.Options{BaseURL: base, ReportDir: dir, Output: &out, Format: "pretty"})
	for _, sc := range res.Summary.Scenarios {
		if sc.Status != verdict.StatusPassed {
			t.Errorf("%s: %s — %s\n%s", sc.Status, sc.Feature, sc.Name, sc.Reason)
		}
	}
	require.Zero(t, res.Failed)
	require.Nil(t, res.Summary.Stopped)
	th := res.Summary.Throttling
	require.Positive(t, served.Load())
	require.Positive(t, th.Throttled)
	assert.Positive(t, th.WaitedSeconds)
	assert.Contains(t, out.String(), "throttling: "+th.String())
	for op, oc := range res.Summary.Coverage.Operations {
		assert.NotContains(t, oc.Exercised, http.StatusTooManyRequests, "%s: a throttled answer is not the API's 429", op)
		assert.NotContains(t, oc.Exercised, http.StatusServiceUnavailable, "%s: nor the API's 503", op)
	}

	var sum struct {
		Throttling struct {
			Requests int64   `json:"throttled_requests"`
			Waited   float64 `json:"waited_seconds"`
		} `json:"throttling"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	assert.Equal(t, th.Throttled, sum.Throttling.Requests)
	assert.InDelta(t, th.WaitedSeconds, sum.Throttling.Waited, 1e-9)
	page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<dd id="throttling">`+strings.ReplaceAll(th.String(), "'", "&#39;"))
	t.Logf("%s", th)
}

// alwaysThrottles answers 429 with Retry-After: 1 to every request.
var alwaysThrottles = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = io.WriteString(w, "slow down")
})

// TestSuiteStopsWhenTheTargetKeepsThrottling: past --max-throttle-wait of
// waiting, the run stops: STOPPED, no scenario failed, every one not run
// says the target kept throttling, and the error is a target that cannot
// be tested (exit code 2).
func TestSuiteStopsWhenTheTargetKeepsThrottling(t *testing.T) {
	t.Parallel()
	base := serveFunc(t, alwaysThrottles)
	var out bytes.Buffer
	res, err := steps.Run(t.Context(), steps.Options{BaseURL: base, Profile: profiles.Reference(base), NoPreflight: true, Output: &out, Format: "progress",
		Tags: "@payments", MaxThrottleWait: 1500 * time.Millisecond, Concurrency: 4})
	require.ErrorIs(t, err, steps.ErrTarget)
	assert.Contains(t, err.Error(), "the target kept throttling")
	assert.Zero(t, res.Failed, out.String())
	st := res.Summary.Stopped
	require.NotNil(t, st)
	assert.Equal(t, verdict.StopThrottled, st.Cause)
	assert.Positive(t, st.NotRun)
	for _, sc := range res.Summary.Scenarios {
		if sc.Status == verdict.StatusSkipped && !strings.HasPrefix(sc.Reason, "the profile lacks") {
			assert.True(t, sc.NotRun, sc.Name)
			assert.Contains(t, sc.Reason, "the target kept throttling", sc.Name)
		}
	}
	assert.Contains(t, out.String(), "RESULT: STOPPED")
	// One hold of 1 s; a second would pass 1.5 s, so the run stops before
	// it. The wait is measured, so a loaded machine adds to it, never a
	// second's worth.
	waited := res.Summary.Throttling.WaitedSeconds
	assert.GreaterOrEqual(t, waited, 1.0, "one hold of 1 s")
	assert.Less(t, waited, 2.0, "one hold of 1 s; the next would pass 1.5 s")
}

// TestSuiteFailsAThrottledPaymentThatWasProcessed: a payment answered 429
// and then 409 when sent again (with the same partner_trx_id, used by no
// earlier request: a server that processed what it throttled) fails its
// scenario, naming the finding and its sentence.
func TestSuiteFailsAThrottledPaymentThatWasProcessed(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultThrottledButProcessed)
	res := runOpts(t, steps.Options{BaseURL: srv.URL, Locations: []string{"features/payments.feature:40"}})
	require.Equal(t, 1, res.Failed)
	var failed verdict.Case
	for _, sc := range res.Summary.Scenarios {
		if sc.Status == verdict.StatusFailed {
			failed = sc
		}
	}
	assert.Contains(t, failed.Reason, contract.ErrThrottledProcessed.Error())
	assert.Contains(t, failed.Reason, "throttled: 1 times before this answer")
	assert.Contains(t, failed.Reason, contract.SentenceThrottle)
}
