package contract

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestThrottled(t *testing.T) {
	t.Parallel()
	with := http.Header{"Retry-After": {"1"}}
	for _, tc := range []struct {
		name   string
		status int
		h      http.Header
		want   bool
	}{
		{"429 with Retry-After", 429, with, true},
		{"429 without Retry-After", 429, http.Header{}, true},
		{"503 with Retry-After", 503, with, true},
		{"503 without Retry-After is a server fault", 503, http.Header{}, false},
		{"500 with Retry-After is a server fault", 500, with, false},
		{"200", 200, with, false},
		{"409", 409, http.Header{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, Throttled(tc.status, tc.h))
		})
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		value string
		wait  time.Duration
		ok    bool
	}{
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"Sun, 01 Mar 2026 10:00:03 GMT", 3 * time.Second, true},  // IMF-fixdate
		{"Sunday, 01-Mar-26 10:00:05 GMT", 5 * time.Second, true}, // RFC 850
		{"Sun Mar  1 10:00:02 2026", 2 * time.Second, true},       // asctime
		{"Sun, 01 Mar 2026 09:59:00 GMT", 0, true},                // in the past: no wait
		{"", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
	} {
		h := http.Header{}
		if tc.value != "" {
			h.Set("Retry-After", tc.value)
		}
		wait, ok := RetryAfter(h, now)
		assert.Equal(t, tc.ok, ok, "%q", tc.value)
		assert.Equal(t, tc.wait, wait, "%q", tc.value)
	}
}

func TestCheckThrottledNotProcessed(t *testing.T) {
	t.Parallel()
	assert.ErrorIs(t, CheckThrottledNotProcessed(http.StatusConflict, false), ErrThrottledProcessed)
	assert.NoError(t, CheckThrottledNotProcessed(http.StatusConflict, true), "an earlier request may have used the id")
	assert.NoError(t, CheckThrottledNotProcessed(http.StatusOK, false))
	assert.NoError(t, CheckThrottledNotProcessed(http.StatusUnprocessableEntity, false))
}
