package steps_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// TestRunStopsEarlyOnDeadTarget: against a target that gives
// no answer, the whole suite stops after a few requests in a row without an
// answer, with ErrTarget (exit 2), instead of failing every scenario one
// timeout after another; the scenarios not run are skipped, never failed.
func TestRunStopsEarlyOnDeadTarget(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	hanging := func(t *testing.T) string {
		done := make(chan struct{})
		url := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			select {
			case <-done:
			case <-r.Context().Done():
			}
		})
		t.Cleanup(func() { close(done) })
		return url
	}
	for name, target := range map[string]func(t *testing.T) string{
		"closed port": func(t *testing.T) string { return closedURL(t) },
		"hangs":       hanging,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := steps.Run(context.Background(), steps.Options{
				Profile: profiles.Reference(target(t)), Concurrency: 4, Format: "progress", Output: io.Discard,
				RequestTimeout: 300 * time.Millisecond, NoPreflight: true,
			})
			require.ErrorIs(t, err, steps.ErrTarget)
			assert.Contains(t, err.Error(), "in a row")
			// The run stops after 5 requests without an answer (4 in flight
			// at most), and the scenarios that met the dead target are not
			// run to their end: none fails, since the server answered nothing.
			assert.Zero(t, res.Failed, "a target that stopped answering fails no scenario")
			require.NotNil(t, res.Summary.Stopped)
			assert.Equal(t, verdict.StopTarget, res.Summary.Stopped.Cause)
			assert.Greater(t, res.Skipped, 70)
			assert.Zero(t, res.Passed)
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == verdict.StatusSkipped {
					assert.Contains(t, sc.Reason, "not run", sc.Name)
				}
			}
			if name == "hangs" {
				assert.LessOrEqual(t, hits.Load(), int64(12), "requests sent to the hanging target")
			}
		})
	}
}

func TestRunSurvivesBadTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range badTargets() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := tc.target(t)
			// Short for the hanging target; long enough elsewhere that a
			// loaded machine (race detector, other tests) still reads a
			// 10 MB answer to its limit.
			timeout := 30 * time.Second
			if tc.name == "hangs" {
				timeout = 500 * time.Millisecond
			}
			res, err := steps.Run(context.Background(), steps.Options{
				Profile: profiles.Reference(url), Tags: "@payment-methods,@customers&&~@profile-fault",
				Concurrency: 4, Format: "progress", Output: io.Discard, RequestTimeout: timeout,
				NoPreflight: true,
			})
			switch {
			case tc.page:
				// Pages, not the API's answers: no scenario fails for them,
				// each that met one is not judged (a run of more requests
				// stops, INCOMPLETE, once most are pages: see
				// TestAGatewaysPageIsNotTheAPIs).
				require.NoError(t, err)
				assert.Zero(t, res.Failed)
				require.Len(t, res.Summary.NotJudgedGroups, 1)
				assert.Contains(t, res.Summary.NotJudgedGroups[0].Headline, tc.reason)
				assert.Equal(t, verdict.VerdictIncomplete, res.Verdict())
			case err != nil:
				require.ErrorIs(t, err, steps.ErrTarget, "only a dead target, or a gateway's pages, may stop the run")
				// It stopped answering: no scenario fails for it, and the
				// stop names the transport's failure.
				require.NotNil(t, res.Summary.Stopped)
				assert.Zero(t, res.Failed)
				assert.Contains(t, res.Summary.Stopped.LastTransportError, tc.reason)
			default:
				require.Positive(t, res.Failed)
			}
			assert.Zero(t, res.Passed, "nothing can pass against a broken target")
			for _, sc := range res.Summary.Scenarios {
				switch sc.Status {
				case verdict.StatusFailed:
					assert.Contains(t, sc.Reason, tc.reason, sc.Name)
				case verdict.StatusSkipped:
					assert.Contains(t, sc.Reason, "not run", sc.Name)
				}
			}
		})
	}
}

// badTarget is a target that cannot be tested, and what a failure against
// it names.
type badTarget struct {
	name   string
	target func(t *testing.T) string
	reason string
	// page: the target answers a page of its own, as a gateway in front
	// of the API does, not the API's JSON (contract.GatewayAnswer).
	page bool
}

// badTargets are targets that refuse, hang, answer HTML, answer too much,
// or reset the connection.
func badTargets() []badTarget {
	serve := func(h http.HandlerFunc) func(t *testing.T) string {
		return func(t *testing.T) string {
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			return srv.URL
		}
	}
	return []badTarget{
		{"closed port", func(t *testing.T) string { return closedURL(t) }, "refused the connection", false},
		{"hangs", hangingTarget, "request timeout", false},
		{"answers HTML", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("<html><body>It works!</body></html>"))
		}), "a gateway answered 200 OK (no Server header), not the API", true},
		{"answers 10 MB", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for range 160 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}), "larger than", false},
		{"resets the connection", serve(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
		}), "connection", false},
	}
}

// hangingTarget accepts every request and never answers it, until the
// test ends.
func hangingTarget(t *testing.T) string {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv.URL
}
