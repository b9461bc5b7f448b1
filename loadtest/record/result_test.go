package record

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	back := fromVegeta(r.vegeta(http.Header{}, false))
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

// TestAGatewayResultIsItsOwnClass: an answer a gateway gave instead of the
// API is neither allowed nor a server error of the API, is counted apart
// per operation, and stays a gateway's through the results file, the
// first of its kind with its exhibit (the request and its answer).
func TestAGatewayResultIsItsOwnClass(t *testing.T) {
	t.Parallel()
	now := time.Now()
	page := []byte("<html><head><title>503 Service Temporarily Unavailable</title></head></html>")
	x := NewExhibit("POST", "http://gw/client/v2/payment", "load_customers[0]", []byte(`{"partner_trx_id":"a"}`), 503,
		http.Header{"Content-Type": {"text/html"}, "Server": {"nginx/1.22.1"}}, page)
	r := Result{Result: vegeta.Result{Attack: OpCreate, Code: 503, Timestamp: now, Latency: time.Millisecond,
		Error: "a gateway answered 503 Service Temporarily Unavailable (Server: nginx/1.22.1), not the API"},
		Scheduled: now, Op: OpCreate, Gateway: true, Exhibit: x}
	assert.False(t, r.serverError())
	back := fromVegeta(r.vegeta(http.Header{}, true))
	assert.True(t, back.Gateway)
	assert.False(t, back.Allowed)
	require.NotNil(t, back.Exhibit)
	assert.Equal(t, *x, *back.Exhibit)
	assert.Nil(t, fromVegeta(r.vegeta(http.Header{}, false)).Exhibit, "only the first of its kind keeps its exhibit")

	tally := NewTally(now, time.Second, 10*time.Millisecond, false)
	assert.True(t, tally.add(&back), "the first of its kind")
	assert.False(t, tally.add(&back))
	sum := tally.Totals()
	assert.Equal(t, 2, sum.Gateway)
	assert.Zero(t, sum.ServerErrors)
	set := tally.Errors.Set()
	require.Len(t, set, 1)
	assert.Equal(t, x, set[0].Exhibit)
	assert.Contains(t, x.String("  "), "  < 503 Service Unavailable; Content-Type: text/html; Server: nginx/1.22.1\n  < <html><head><title>503")
}
