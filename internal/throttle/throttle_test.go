package throttle

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
)

func retryAfter(v string) http.Header {
	h := http.Header{}
	if v != "" {
		h.Set("Retry-After", v)
	}
	return h
}

// TestGateHoldsOffAsRetryAfterSays: after a throttled answer, Wait holds
// every request until Retry-After has passed; a hold of 0 lets them go.
func TestGateHoldsOffAsRetryAfterSays(t *testing.T) {
	t.Parallel()
	g := New(Options{})
	require.NoError(t, g.Wait(t.Context()))
	wait, err := g.Throttled(retryAfter("1"))
	require.NoError(t, err)
	assert.Equal(t, time.Second, wait)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, g.Wait(ctx), context.DeadlineExceeded, "held for a second, not 50 ms")

	g = New(Options{})
	wait, err = g.Throttled(retryAfter("0"))
	require.NoError(t, err)
	assert.Equal(t, MinHold, wait, "Retry-After: 0 holds the least")
	require.NoError(t, g.Wait(t.Context()))
}

// TestGateCountsTheRunsWaitingOnce: throttled answers that arrive together
// share one hold, and the run's waiting is the union of its holds. The
// four answers name the same instant (Retry-After as a date), so their
// union is the wait from the first of them to it, however a loaded machine
// spreads their arrival; four holds summed would be about four times that.
func TestGateCountsTheRunsWaitingOnce(t *testing.T) {
	t.Parallel()
	g := New(Options{})
	until := time.Now().Add(3 * time.Second).UTC().Truncate(time.Second) // 2 to 3 s ahead
	var wg sync.WaitGroup
	began := time.Now()
	for range 4 {
		wg.Go(func() {
			_, err := g.Throttled(retryAfter(until.Format(http.TimeFormat)))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	ended := time.Now()
	s := g.Summary()
	assert.EqualValues(t, 4, s.Throttled)
	assert.GreaterOrEqual(t, s.WaitedSeconds, until.Sub(ended).Seconds(), "one hold, from the first answer to the instant")
	assert.LessOrEqual(t, s.WaitedSeconds, until.Sub(began).Seconds(), "one hold, from the first answer to the instant")
	assert.InDelta(t, DefaultMaxWait.Seconds(), s.MaxWaitSeconds, 0.001)
}

// TestGateWaitsADefaultThatDoubles: without a readable Retry-After the hold
// is DefaultWait, doubled for each such answer in a row up to
// MaxDefaultWait; an answer in between starts again.
func TestGateWaitsADefaultThatDoubles(t *testing.T) {
	t.Parallel()
	g := New(Options{MaxWait: time.Hour})
	var got []time.Duration
	for _, v := range []string{"", "soon", "", "", "", "", ""} {
		w, err := g.Throttled(retryAfter(v))
		require.NoError(t, err)
		got = append(got, w)
	}
	s := time.Second
	assert.Equal(t, []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 16 * s, 16 * s}, got)
	g.Answered()
	w, err := g.Throttled(retryAfter(""))
	require.NoError(t, err)
	assert.Equal(t, s, w)
}

// TestGateStopsPastMaxWait: a hold that would take the run's waiting past
// MaxWait stops the run; every request after that is refused.
func TestGateStopsPastMaxWait(t *testing.T) {
	t.Parallel()
	g := New(Options{MaxWait: 1500 * time.Millisecond})
	_, err := g.Throttled(retryAfter("1"))
	require.NoError(t, err)
	_, err = g.Throttled(retryAfter("3"))
	require.ErrorIs(t, err, ErrKeptThrottling)
	assert.Contains(t, err.Error(), "--max-throttle-wait")
	assert.ErrorIs(t, g.Wait(t.Context()), ErrKeptThrottling)
	s := g.Summary()
	assert.EqualValues(t, 2, s.Throttled)
	assert.InDelta(t, 1, s.WaitedSeconds, 0.001, "the refused hold is not waited")
	assert.ErrorIs(t, g.Stopped(), ErrKeptThrottling)
	assert.Contains(t, s.String(), "2 requests throttled (429, or 503 with Retry-After) and sent again after the wait; the run waited 1 s in all (at most 1.5 s")
}

// TestGateHalvesThePace: the first throttled answer of a hold that asks
// for a wait halves the pace (the one asked for, or the rate of the answers
// since the last hold); more throttled answers during the hold do not, nor
// does a Retry-After of 0.
func TestGateHalvesThePace(t *testing.T) {
	t.Parallel()
	g := New(Options{Rate: 100})
	assert.InDelta(t, 100, g.Summary().PacedAt, 0.01)
	throttled := func(v string) {
		_, err := g.Throttled(retryAfter(v))
		require.NoError(t, err)
	}
	throttled("0")
	assert.InDelta(t, 100, g.Summary().PacedAt, 0.01, "come back now: no slower")
	throttled("1")
	assert.InDelta(t, 50, g.Summary().PacedAt, 0.01)
	throttled("1")
	assert.InDelta(t, 50, g.Summary().PacedAt, 0.01, "within the hold: once")
	g.notBefore, g.slowedFor = time.Now(), time.Now() // the hold is over
	throttled("1")
	assert.InDelta(t, 25, g.Summary().PacedAt, 0.01, "the next hold: halved again")
	assert.Contains(t, g.Summary().String(), "paced at 25/s after")

	g = New(Options{})
	throttled("1")
	assert.Zero(t, g.Summary().PacedAt, "no answer yet: nothing known of the rate")
	g.notBefore, g.slowedFor = time.Now(), time.Now()
	for range 300 {
		g.Answered()
	}
	for i := range recentAnswers { // 256 answers 2 ms apart, the last 10 ms ago
		g.recent[i] = time.Now().Add(-10*time.Millisecond - time.Duration(recentAnswers-1-i)*2*time.Millisecond)
	}
	g.answers = recentAnswers
	throttled("1")
	assert.InDelta(t, 250, g.Summary().PacedAt, 10, "500 answers a second: paced at half")
}

// TestGatePaces: with a rate, requests go out no faster than it.
func TestGatePaces(t *testing.T) {
	t.Parallel()
	g := New(Options{Rate: 1})
	require.NoError(t, g.Wait(t.Context()))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := g.Wait(ctx)
	require.Error(t, err, "the second request of a 1/s pace waits a second")
	assert.False(t, errors.Is(err, ErrKeptThrottling))
}

// TestGateFindsAThrottledPaymentProcessed: a payment sent again after
// throttled answers may be answered 409 only when an earlier request with
// its partner_trx_id was answered.
func TestGateFindsAThrottledPaymentProcessed(t *testing.T) {
	t.Parallel()
	g := New(Options{})
	pay := func(id string) []byte { return []byte(`{"product_id":1001,"partner_trx_id":"` + id + `"}`) }
	require.ErrorIs(t, g.CheckResent(pay("a"), http.StatusConflict), contract.ErrThrottledProcessed)
	require.NoError(t, g.CheckResent(pay("a"), http.StatusOK))
	g.PaymentAnswered(pay("b"))
	require.NoError(t, g.CheckResent(pay("b"), http.StatusConflict), "b was answered before: its 409 may be right")
	require.NoError(t, g.CheckResent([]byte("not json"), http.StatusConflict))
}

// TestGateSpeedsUpWhenNothingIsThrottled: calmFor after its last halving,
// each answer a second apart raises the pace by a quarter, never above the
// pace asked for.
func TestGateSpeedsUpWhenNothingIsThrottled(t *testing.T) {
	t.Parallel()
	g := New(Options{Rate: 100})
	_, err := g.Throttled(retryAfter("1"))
	require.NoError(t, err)
	require.InDelta(t, 50, g.Summary().PacedAt, 0.01)
	g.Answered()
	assert.InDelta(t, 50, g.Summary().PacedAt, 0.01, "within calmFor of the halving: no faster")
	g.slowedFor = time.Now().Add(-calmFor)
	g.Answered()
	assert.InDelta(t, 62.5, g.Summary().PacedAt, 0.01)
	g.Answered()
	assert.InDelta(t, 62.5, g.Summary().PacedAt, 0.01, "once a second")
	for range 5 {
		g.raisedAt = time.Now().Add(-time.Second)
		g.Answered()
	}
	assert.InDelta(t, 100, g.Summary().PacedAt, 0.01, "up to --rate")
}

// TestGateStopsOnMostlyAGatewaysAnswers: a gateway's pages stop the run
// once contract.GatewaySample answers are counted and most were the
// gateway's, not before, and not when half are: the error is a
// *contract.GatewayError with the first page, and every Wait after it
// returns it.
func TestGateStopsOnMostlyAGatewaysAnswers(t *testing.T) {
	t.Parallel()
	page := func(status int) contract.Gateway {
		return contract.Gateway{Status: status, Reason: "Service Temporarily Unavailable", Server: "nginx"}
	}
	g := New(Options{})
	for range 10 {
		g.Answered()
		require.NoError(t, g.Gateway(page(503)), "half of the answers are the API's")
	}
	require.NoError(t, g.Wait(t.Context()))
	err := g.Gateway(page(502))
	var ge *contract.GatewayError
	require.ErrorAs(t, err, &ge, "11 of 21")
	assert.Equal(t, 11, ge.Count)
	assert.Equal(t, 21, ge.Of)
	assert.Equal(t, 503, ge.Status, "the first page")
	assert.ErrorIs(t, g.Wait(t.Context()), contract.ErrGateway)
	assert.True(t, Stops(g.Stopped()))
	assert.False(t, Stops(context.Canceled))

	g = New(Options{})
	for range contract.GatewaySample - 1 {
		require.NoError(t, g.Gateway(page(503)), "fewer answers than the sample")
	}
	require.Error(t, g.Gateway(page(503)))
}
