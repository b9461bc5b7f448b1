package transport_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/transport"
)

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// freeAddr is a loopback address nothing listens on (yet).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// probe is a preflight of the test: a GET of addr that wants 200, counted.
func probe(addr string, tries *atomic.Int32) func(context.Context) error {
	return func(ctx context.Context) error {
		tries.Add(1)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
}

// TestWaitForALateServer: the server's listener opens two seconds after the
// wait begins; the wait tries in vain until then, and passes.
func TestWaitForALateServer(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), ReadHeaderTimeout: time.Second}
	opened := make(chan error, 1)
	late := time.AfterFunc(2*time.Second, func() {
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr)
		opened <- err
		if err == nil {
			_ = srv.Serve(ln)
		}
	})
	defer func() { late.Stop(); _ = srv.Close() }()

	var tries atomic.Int32
	require.NoError(t, transport.Wait(t.Context(), 20*time.Second, probe(addr, &tries)))
	require.NoError(t, <-opened, "the late listener did not open: the test proves nothing")
	assert.Greater(t, tries.Load(), int32(1), "the first try passed: the server was not late")
}

// TestWaitGivesUpWithTheLastReason: past the wait, the error says how long
// and how often it tried, and wraps the last reason.
func TestWaitGivesUpWithTheLastReason(t *testing.T) {
	t.Parallel()
	var tries atomic.Int32
	err := transport.Wait(t.Context(), 500*time.Millisecond, probe(freeAddr(t), &tries))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the target did not pass the preflight check within --wait-for-target 500ms")
	assert.Contains(t, err.Error(), "connection refused")
	assert.Greater(t, tries.Load(), int32(1))

	reason := errors.New("401: check the profile's keys")
	err = transport.Wait(t.Context(), 300*time.Millisecond, func(context.Context) error { return reason })
	assert.ErrorIs(t, err, reason)
}

// TestWaitZeroTriesOnce: without --wait-for-target the check runs once and
// its error is returned as it is.
func TestWaitZeroTriesOnce(t *testing.T) {
	t.Parallel()
	reason := errors.New("refused")
	calls := 0
	err := transport.Wait(t.Context(), 0, func(context.Context) error { calls++; return reason })
	assert.Same(t, reason, err)
	assert.Equal(t, 1, calls)
}

// TestWaitStopsWhenCancelled: an interrupted wait ends at once, with the
// cause and the last reason.
func TestWaitStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(t.Context())
	interrupted := errors.New("interrupt")
	reason := errors.New("refused")
	calls := 0
	err := transport.Wait(ctx, time.Hour, func(context.Context) error {
		calls++
		if calls == 2 {
			cancel(interrupted)
		}
		return reason
	})
	require.ErrorIs(t, err, interrupted)
	assert.ErrorIs(t, err, reason)
	assert.Equal(t, 2, calls)
}
