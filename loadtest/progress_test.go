package loadtest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// progressLog collects the progress updates of a run.
type progressLog struct {
	mu      sync.Mutex
	updates []loadtest.Progress
}

func (l *progressLog) add(p loadtest.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.updates = append(l.updates, p)
}

// TestReconcileProgressCountsIDs: while the ids of a create run are looked
// up (the look-ups held, once the attack has ended, until the progress has
// spoken of them), the progress says how many of the run's created ids
// were looked up, of all of them: never more than the total, which is the
// number of ids the reconciliation looks up (it once counted a wave's
// worth of sequence numbers as one id in every scenario: "202 of 38").
func TestReconcileProgressCountsIDs(t *testing.T) {
	t.Parallel()
	ref := httpapitest.Handler(t)
	var ended, spoke sync.Once
	attackEnded, lookUpsTold := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/client/v2/payment/status" && !strings.Contains(r.URL.RawQuery, "probe-") {
			select {
			case <-attackEnded: // a look-up of the reconciliation, not its probe of the target
				select {
				case <-lookUpsTold:
				case <-r.Context().Done():
					return
				}
			default:
			}
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	var log progressLog
	progress := func(p loadtest.Progress) {
		if p.Final {
			ended.Do(func() { close(attackEnded) })
		}
		if p.Phase == loadtest.PhaseReconcile {
			spoke.Do(func() { close(lookUpsTold) })
		}
		log.add(p)
	}
	_, rep := run(t, profiles.Reference(srv.URL), loadtest.WithLoad(constant(100, time.Second)), loadtest.WithProgress(10*time.Millisecond, progress))
	requireNoFailure(t, rep)
	require.NotNil(t, rep.Reconciliation)
	n := 0
	for _, p := range log.updates {
		if p.Phase != loadtest.PhaseReconcile {
			continue
		}
		n++
		assert.Equal(t, int64(rep.Reconciliation.LookedUp), p.ToLookUp, "the ids to look up")
		assert.LessOrEqual(t, p.LookedUp, p.ToLookUp, "more looked up than there are")
	}
	require.Positive(t, n, "no progress during the look-ups: the test proves nothing")
}

// TestProgressDoesNotCountThrottledAsUnexpected: against the reference
// limited to 100 requests a second, a run at 200 a second gets throttled
// answers; the progress counts them as throttled, never as unexpected
// answers (every other answer is the expected one).
func TestProgressDoesNotCountThrottledAsUnexpected(t *testing.T) {
	t.Parallel()
	p, _ := startRateLimited(t, 100)
	var log progressLog
	_, rep := run(t, p, loadtest.WithLoad(constant(200, time.Second)), loadtest.WithProgress(time.Hour, log.add))
	require.Positive(t, rep.Throttled, text(t, rep))
	require.Equal(t, rep.Requests, rep.Expected+rep.Throttled, "an answer neither expected nor throttled: %s", text(t, rep))
	require.NotEmpty(t, log.updates)
	final := log.updates[len(log.updates)-1]
	require.True(t, final.Final)
	assert.Zero(t, final.Unexpected, "throttled answers counted as unexpected")
	assert.Equal(t, int64(rep.Throttled), final.Throttled)
}
