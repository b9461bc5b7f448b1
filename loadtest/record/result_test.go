package record

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// TestAThrottledResultIsItsOwnClass: a throttled answer (a 503 with
// Retry-After here) is allowed, not a server error, counted apart per
// operation and over time, and stays throttled through the results file.
func TestAThrottledResultIsItsOwnClass(t *testing.T) {
	t.Parallel()
	now := time.Now()
	r := Result{Result: vegeta.Result{Attack: OpCreate, Code: 503, Timestamp: now, Latency: time.Millisecond, Error: "throttled: HTTP 503"},
		Scheduled: now, Op: OpCreate, Throttled: true, Allowed: true}
	assert.False(t, r.serverError())
	back := FromVegeta(r.vegeta(http.Header{}))
	assert.True(t, back.Throttled)
	assert.True(t, back.Allowed)
	assert.False(t, back.Expected)

	tally := NewTally(now, time.Second, 10*time.Millisecond, false)
	tally.add(&back)
	plain := back
	plain.Throttled, plain.Code = false, 500
	tally.add(&plain)
	assert.Equal(t, 1, tally.Ops[OpCreate].Throttled)
	assert.Equal(t, 1, tally.Ops[OpCreate].ServerErrors, "the 500, not the throttled 503")
	assert.Equal(t, 1, tally.Totals().Throttled)
	throttled := 0
	for _, b := range tally.Timeline.Buckets {
		throttled += b.Throttled
	}
	assert.Equal(t, 1, throttled)
}
