package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// TestRateLimitPerSecretKey: past perSecond requests of one secret key in
// a second, the reference answers 429 with Retry-After and the contract's
// error body, before the request reaches the API (an unknown key is
// limited too); another key has a bucket of its own.
func TestRateLimitPerSecretKey(t *testing.T) {
	t.Parallel()
	st, _ := newTestStore(t)
	h := RateLimit(NewServer(slog.New(slog.DiscardHandler), st), 5)
	get := func(secret string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/client/v2/customer/profile", nil)
		req.Header.Set("X-SECRET-KEY", secret)
		req.Header.Set("Authorization", "Bearer "+referencetest.TokMain)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for i := range 5 {
		assert.Equal(t, http.StatusOK, get(referencetest.KeyNusantara).Code, "request %d is within the limit", i+1)
	}
	rec := get(referencetest.KeyNusantara)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	wait, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	require.NoError(t, err, "Retry-After is whole seconds")
	assert.Equal(t, 1, wait)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var body struct {
		Status  *bool  `json:"status"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	require.NotNil(t, body.Status)
	assert.False(t, *body.Status)
	assert.Equal(t, MsgRateLimited, body.Message)

	assert.Equal(t, http.StatusUnauthorized, get(referencetest.KeyWarung).Code, "another key has its own bucket: the API answers it (401: not this token's partner)")
	for range 5 {
		get("wrong-key")
	}
	assert.Equal(t, http.StatusTooManyRequests, get("wrong-key").Code, "an unknown key is limited as well")
}

// TestRateLimitOff: below 1 a second, nothing is limited.
func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	next := http.NewServeMux()
	assert.Same(t, next, RateLimit(next, 0))
}

// TestLimiterBuckets: a full bucket pays for perSecond takes, then says how
// long until its next token without taking it; an empty one refuses its
// first take; each key has its own bucket until maxRateKeys, then the new
// keys share one.
func TestLimiterBuckets(t *testing.T) {
	t.Parallel()
	full := NewLimiter(3, false)
	for i := range 3 {
		assert.Zero(t, full.Take("a"), "take %d", i+1)
	}
	wait := full.Take("a")
	assert.Positive(t, wait)
	assert.LessOrEqual(t, wait, time.Second/3)
	assert.Zero(t, full.Take("b"), "another key's bucket")

	empty := NewLimiter(1000, true)
	assert.Positive(t, empty.Take("a"), "an empty bucket's first take")

	shared := NewLimiter(1, false)
	for i := range maxRateKeys {
		assert.Zero(t, shared.Take(strconv.Itoa(i)))
	}
	assert.Zero(t, shared.Take("one more"), "the first key past the bound takes the shared bucket's token")
	assert.Positive(t, shared.Take("yet another"), "and the next finds it taken")
}
