package loadtest_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// startRateLimited serves the reference limited to perSecond requests a
// second per secret key (reference --rate-limit) and counts the throttled
// answers it sends.
func startRateLimited(tb testing.TB, perSecond int) (*profiles.Profile, *atomic.Int64) {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(tb, err)
	st, err := reference.NewStore(ds)
	require.NoError(tb, err)
	limited := httpapi.RateLimit(httpapi.NewServer(slog.New(slog.DiscardHandler), st), perSecond)
	var throttled atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		limited.ServeHTTP(rec, r)
		if contract.Throttled(rec.status, w.Header()) {
			throttled.Add(1)
		}
	}))
	tb.Cleanup(srv.Close)
	return profiles.Reference(srv.URL), &throttled
}

// statusRecorder remembers the status written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// TestLoadTesterMeasuresARateLimit: at 400 payments a second against the
// reference limited to 200 a second (reference --rate-limit 200), the
// throttled answers are a class of their own (per operation, over time),
// never contract violations nor server errors; the look-ups and wallet
// reads of the reconciliation wait out their own throttled answers, every
// account reconciles, and the run passes saying the offered rate was above
// the limit, unless --max-throttled-pct 10 makes throttling fail it.
func TestLoadTesterMeasuresARateLimit(t *testing.T) {
	t.Parallel()
	p, served := startRateLimited(t, 200)
	rec, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(400, 2*time.Second)))
	out := text(t, rep)
	requireNoFailure(t, rep)
	require.Positive(t, rep.Throttled, out)
	assert.Equal(t, rep.Throttled, rep.Ops[record.OpCreate].Throttled)
	assert.Zero(t, rep.Contract.Violations, out)
	assert.Zero(t, rep.ServerErrors, out)
	assert.Greater(t, served.Load(), int64(rep.Throttled), "the reconciliation's own requests were throttled too, and waited out")
	require.NotNil(t, rep.Reconciliation)
	assert.True(t, rep.Reconciliation.Passed(), out)
	assert.Empty(t, rep.ReconcileStopped)
	for _, a := range rep.Reconciliation.Accounts {
		assert.Empty(t, a.Skipped, "%s: every account reconciles", a.Account)
		assert.True(t, a.OK, a.Account)
	}
	assert.Contains(t, out, "the offered rate was above the target's limit")
	assert.Contains(t, out, "Throttled "+readable.Thousands(rep.Throttled)+" answers")
	var classes []string
	for _, l := range rep.Verdict {
		classes = append(classes, l.Class)
	}
	assert.Contains(t, classes, report.ClassThrottled)

	var page bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&page))
	assert.Contains(t, page.String(), `id="throttled"`)
	assert.Contains(t, page.String(), "throttled (429, or 503 with Retry-After: refused for the rate, not processed)")

	th, err := report.MaxThreshold("throttled_pct", "10")
	require.NoError(t, err)
	strict := judge(t, rec, th)
	require.False(t, strict.Passed, "--max-throttled-pct 10 with %.1f%% throttled", strict.ThrottledPct)
	assert.Contains(t, text(t, strict), "throttled_pct")
}

// TestRetryScenarioSendsAThrottledPaymentAgain: the retry scenario sends a
// throttled payment again with the same partner_trx_id after the wait its
// answer asks for; nothing is debited twice.
func TestRetryScenarioSendsAThrottledPaymentAgain(t *testing.T) {
	t.Parallel()
	p, _ := startRateLimited(t, 50)
	rec, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioRetry), loadtest.WithRetry(3, 500*time.Millisecond, 20*time.Millisecond),
		loadtest.WithLoad(constant(200, 500*time.Millisecond)))
	out := text(t, rep)
	requireNoFailure(t, rep)
	require.Positive(t, rep.Throttled, out)
	throttled, createdOnRetry := map[string]bool{}, 0
	for _, pay := range recordtest.Payments(t, rec) {
		if pay.Outcome == record.OutcomeThrottled {
			throttled[pay.ID] = true
		}
	}
	for _, pay := range recordtest.Payments(t, rec) {
		if pay.Attempt > 1 && pay.Outcome == record.OutcomeCreated && throttled[pay.ID] {
			createdOnRetry++
		}
	}
	assert.Positive(t, createdOnRetry, "a throttled payment sent again was created")
	assert.Zero(t, rep.Reconciliation.Duplicates, out)
}

// TestAThrottledPaymentThatWasProcessedIsFound: a server that answers 429
// in place of the payments it created debits wallets for payments no
// answer acknowledged: the reconciliation, which checks a throttled
// payment as a refusal, finds the balance off; the retry scenario, whose
// payment sent again meets a used id (409), finds each one resurrected.
func TestAThrottledPaymentThatWasProcessedIsFound(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultThrottledButProcessed)
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}),
		loadtest.WithLoad(constant(40, 500*time.Millisecond)))
	require.False(t, rep.Passed, text(t, rep))
	assert.Positive(t, rep.Reconciliation.Counts[verdict.InvBalance], text(t, rep))

	p = startReference(t, reference.FaultThrottledButProcessed)
	_, rep = run(t, p, loadtest.WithScenario(loadtest.ScenarioRetry), loadtest.WithRetry(1, 500*time.Millisecond, 20*time.Millisecond),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindGateway: 1}), loadtest.WithLoad(constant(40, 500*time.Millisecond)))
	require.False(t, rep.Passed, text(t, rep))
	assert.Positive(t, rep.Reconciliation.Counts[verdict.InvResurrected], text(t, rep))
}
