package throttle

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/nginxtest"
)

// tries answers each send in turn with the next of answers.
func tries(answers ...Try) func(context.Context, int) Try {
	return func(_ context.Context, n int) Try { return answers[n] }
}

// TestSendIsTheRunsPatience: Send waits out a throttled answer and sends
// again (the tries counted), says a gateway's page is no answer of the
// API, and checks a payment sent again after throttled answers: a 409 for
// an id nothing used is the server's finding, unless the payment was one
// of several with that id in flight at once.
func TestSendIsTheRunsPatience(t *testing.T) {
	t.Parallel()
	throttled := Try{Status: http.StatusTooManyRequests, Header: retryAfter("0")}
	json := http.Header{"Content-Type": {"application/json"}}
	page := Try{Status: http.StatusServiceUnavailable, Header: http.Header{"Server": {"nginx/1.22.1"}, "Content-Type": {"text/html"}}, Body: []byte(nginxtest.Page503)}
	payment := []byte(`{"partner_trx_id":"send-1"}`)
	stopped := 0
	stop := func(error) { stopped++ }

	g := New(Options{})
	s := g.Send(t.Context(), tries(throttled, Try{Status: 200, Header: json, Body: []byte(`{}`)}), nil, false, stop)
	require.NoError(t, s.Err)
	assert.Equal(t, 200, s.Status)
	assert.Equal(t, 1, s.Throttled, "one throttled answer waited out")

	s = g.Send(t.Context(), tries(page), nil, false, stop)
	require.NotNil(t, s.Gateway, "a gateway's page")
	assert.ErrorAs(t, s.Err, new(contract.Gateway))

	s = g.Send(t.Context(), tries(throttled, Try{Status: http.StatusConflict, Header: json, Body: []byte(`{}`)}), payment, false, stop)
	assert.ErrorIs(t, s.Resent, contract.ErrThrottledProcessed, "a 409 for an id no answer used: the throttled payment was processed")

	s = g.Send(t.Context(), tries(throttled, Try{Status: http.StatusConflict, Header: json, Body: []byte(`{}`)}), []byte(`{"partner_trx_id":"send-2"}`), true, stop)
	assert.NoError(t, s.Resent, "one of several with its id in flight: its 409 says nothing of the resend")
	assert.Zero(t, stopped, "nothing stopped the run")
}
