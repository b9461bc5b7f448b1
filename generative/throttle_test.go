package generative_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/verdict"
)

// serveReference serves the reference, wrapped by wrap, on a loopback
// port until the test ends.
func serveReference(tb testing.TB, wrap func(http.Handler) http.Handler) string {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(tb, err)
	st, err := reference.NewStore(ds)
	require.NoError(tb, err)
	srv := httptest.NewServer(wrap(httpapi.NewServer(slog.New(slog.DiscardHandler), st)))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// runOpts runs the generated mode with o, seed 1 and a few examples.
func runOpts(tb testing.TB, o generative.Options) generative.Result {
	tb.Helper()
	o.Seed, o.Examples, o.Steps, o.Duration, o.ShrinkTime = 1, 10, 20, time.Minute, 2*time.Second
	res, err := generative.Run(context.Background(), o)
	require.NoError(tb, err)
	return res
}

// TestGeneratedModeWaitsOutARateLimit: against the reference limited to
// 200 requests a second per secret key (reference --rate-limit 200),
// behind the throttling gateway of reference/variants (which throttles the
// first request of each operation, so that the run is throttled whatever
// its speed), every property passes, and the result says how many requests
// were throttled.
func TestGeneratedModeWaitsOutARateLimit(t *testing.T) {
	t.Parallel()
	gateway := variants.Throttles()
	h, err := gateway.Handler()
	require.NoError(t, err)
	srv := httptest.NewServer(httpapi.RateLimit(h, 200))
	t.Cleanup(srv.Close)
	res := runOpts(t, generative.Options{Profile: profiles.Reference(srv.URL)})
	for _, p := range res.Properties {
		assert.Equal(t, verdict.StatusPassed, p.Status, "%s: %s %s\n%s", p.Name(), p.Failure, p.Reason, p.Reproduction)
	}
	require.Positive(t, gateway.Throttled.Load())
	require.Positive(t, res.Throttling.Throttled)
	assert.Empty(t, res.Stopped)
	var out bytes.Buffer
	generative.PrintSummary(&out, res)
	assert.Contains(t, out.String(), "throttling: "+res.Throttling.String())
	t.Logf("%d requests in %.1fs; %s", res.Requests, res.Seconds, res.Throttling)
}

// TestGeneratedModeStopsWhenTheTargetKeepsThrottling: a target that throttles
// every request after its first ones stops the run past
// --max-throttle-wait: no property fails, those not run to their end say
// the target kept throttling.
func TestGeneratedModeStopsWhenTheTargetKeepsThrottling(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	url := serveReference(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) <= 200 {
				h.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		})
	})
	res := runOpts(t, generative.Options{Profile: profiles.Reference(url), MaxThrottleWait: 1500 * time.Millisecond})
	assert.Contains(t, res.Stopped, "the target kept throttling")
	assert.Zero(t, res.Failed())
	skipped := 0
	for _, p := range res.Properties {
		if p.Status == verdict.StatusSkipped {
			skipped++
			assert.Contains(t, p.Reason, "the target kept throttling", p.Name())
		}
	}
	assert.Positive(t, skipped)
	var out bytes.Buffer
	generative.PrintSummary(&out, res)
	assert.Contains(t, out.String(), "STOPPED: the target kept throttling")
}

// TestGeneratedModeFailsAThrottledPaymentThatWasProcessed: a server that
// answers 429 in place of a payment it created makes the payment sent
// again meet a used id (409): the property fails, naming the finding.
func TestGeneratedModeFailsAThrottledPaymentThatWasProcessed(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultThrottledButProcessed)
	res := runOpts(t, generative.Options{Profile: profiles.Reference(srv.URL), Only: "sequences"})
	require.Len(t, res.Properties, 1)
	p := res.Properties[0]
	assert.Equal(t, verdict.StatusFailed, p.Status)
	assert.Contains(t, p.Failure, contract.ErrThrottledProcessed.Error())
}

// TestExamplesCutAreSaid: a property that runs fewer examples than
// planned says why. Cut to below a fifth of its examples, by the run's
// time budget or by a target that throttles, it is not judged (too few
// examples to say the rule holds), a budget cut naming the time the
// property needs, and the run is not OK; above a fifth it passes and says
// the cut. (A budget cut passed on a handful of examples before.)
func TestExamplesCutAreSaid(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	throttling := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1)%2 == 0 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	for _, tc := range []struct {
		name      string
		wrap      func(http.Handler) http.Handler
		cut       string
		notJudged bool
	}{
		{"the run's budget", func(h http.Handler) http.Handler { return h }, generative.CutBudget, false},
		{"a throttling target", throttling, generative.CutThrottled, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := generative.Run(context.Background(), generative.Options{Profile: profiles.Reference(serveReference(t, tc.wrap)),
				Seed: 1, Examples: 100, Duration: time.Nanosecond, ShrinkTime: 2 * time.Second})
			require.NoError(t, err)
			var out bytes.Buffer
			generative.PrintSummary(&out, res)
			for _, p := range res.Properties {
				require.NotEqual(t, verdict.StatusFailed, p.Status, "%s: %s", p.Name(), p.Failure)
				require.Less(t, p.Examples, p.Planned, "%s: one batch of examples, then the budget is spent", p.Name())
				assert.Equal(t, tc.cut, p.Cut, p.Name())
				assert.Contains(t, out.String(), p.Name()+": "+p.ExamplesRun()+" run")
				switch {
				case p.Examples*5 >= p.Planned:
					assert.Equal(t, verdict.StatusPassed, p.Status, p.Name())
				default:
					// Cut below a fifth, by the budget as by throttling: too
					// few examples ran to say the rule holds.
					assert.Equal(t, verdict.StatusNotJudged, p.Status, p.Name())
					assert.Contains(t, p.Reason, tc.cut)
					if !tc.notJudged {
						assert.Contains(t, p.Reason, "at the pace it ran", "a budget cut names the time the property needs")
					}
				}
			}
			assert.False(t, res.OK(), "a run that left properties not judged is not OK")
			assert.Positive(t, res.NotJudged())
		})
	}
}
