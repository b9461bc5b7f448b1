package steps_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/steps"
)

// TestRunSurvivesBadTargets: a target that is down, hangs, answers HTML, a
// huge body or resets the connection makes scenarios fail with a clear
// reason, quickly, without a hang or a panic.
func TestRunSurvivesBadTargets(t *testing.T) {
	t.Parallel()
	closedURL := func(t *testing.T) string {
		var lc net.ListenConfig
		l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		return "http://" + addr
	}
	serve := func(h http.HandlerFunc) func(t *testing.T) string {
		return func(t *testing.T) string {
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			return srv.URL
		}
	}
	cases := []struct {
		name   string
		target func(t *testing.T) string
		reason string
	}{
		{"closed port", closedURL, "refused the connection"},
		{"hangs", func(t *testing.T) string {
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
		}, "request timeout"},
		{"answers HTML", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("<html><body>It works!</body></html>"))
		}), "not application/json"},
		{"answers 10 MB", serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(" ", 64<<10))
			for range 160 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}), "larger than"},
		{"resets the connection", serve(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			_ = conn.Close()
		}), "connection"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := tc.target(t)
			start := time.Now()
			res := run(t, url, "@payment-methods,@customers&&~@profile-fault", nil, 500*time.Millisecond)
			elapsed := time.Since(start)
			assert.Less(t, elapsed, 30*time.Second)
			require.Positive(t, res.Failed)
			assert.Zero(t, res.Passed, "nothing can pass against a broken target")
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == steps.StatusFailed {
					assert.Contains(t, sc.Reason, tc.reason, sc.Name)
				}
			}
		})
	}
}
