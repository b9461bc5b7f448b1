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
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
)

// closedURL is the URL of a loopback port nobody listens on.
func closedURL(tb testing.TB) string {
	tb.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	addr := l.Addr().String()
	require.NoError(tb, l.Close())
	return "http://" + addr
}

// serveFunc starts a loopback server answering with h.
func serveFunc(tb testing.TB, h http.HandlerFunc) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

// TestPreflight: one request tells a target that cannot be tested (closed
// port, HTML server, wrong key, wrong token, hanging) from one that can;
// a documented non-401 answer such as the profile's 500 passes.
func TestPreflight(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		target func(t *testing.T) string
		edit   func(p *profiles.Profile)
		want   string // empty: preflight passes
	}{
		{"the reference", func(t *testing.T) string { return httpapitest.NewServer(t).URL }, nil, ""},
		{"closed port", func(t *testing.T) string { return closedURL(t) }, nil, "refused the connection"},
		{"HTML server", func(t *testing.T) string {
			return serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html><body>It works!</body></html>"))
			})
		}, nil, "not a JSON object"},
		{"wrong secret key", func(t *testing.T) string { return httpapitest.NewServer(t).URL },
			func(p *profiles.Profile) { p.SecretKey = "sk-wrong" }, "401"},
		{"wrong main token", func(t *testing.T) string { return httpapitest.NewServer(t).URL },
			func(p *profiles.Profile) { p.MainToken = "tok-wrong" }, "401"},
		{"hangs", func(t *testing.T) string {
			done := make(chan struct{})
			url := serveFunc(t, func(_ http.ResponseWriter, r *http.Request) {
				select {
				case <-done:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(done) })
			return url
		}, nil, "request timeout"},
		{"documented 500 passes", func(t *testing.T) string {
			return serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"status":false,"message":"Profil belum dapat dimuat. Silakan coba lagi nanti."}`))
			})
		}, nil, ""},
		{"a throttled answer is waited out, then the credentials are checked", func(t *testing.T) string {
			var n atomic.Int64
			ref := httpapitest.NewServer(t)
			return serveFunc(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					w.Header().Set("Retry-After", "0")
					w.WriteHeader(http.StatusTooManyRequests) // no body: a gateway's
					return
				}
				r.URL.Host, r.URL.Scheme, r.RequestURI = strings.TrimPrefix(ref.URL, "http://"), "http", ""
				resp, err := http.DefaultTransport.RoundTrip(r)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				w.WriteHeader(resp.StatusCode)
				_, _ = io.Copy(w, resp.Body)
			})
		}, func(p *profiles.Profile) { p.MainToken = "tok-wrong" }, "401"},
		{"a target that throttles every time is left to the run", func(t *testing.T) string {
			return serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusServiceUnavailable)
			})
		}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := tc.target(t)
			prof := profiles.Reference(url)
			if tc.edit != nil {
				tc.edit(prof)
			}
			err := steps.Preflight(context.Background(), prof, nil, 300*time.Millisecond)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, steps.ErrTarget)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestRunPreflights: Run does not start the scenarios against a target that
// fails preflight, unless NoPreflight is set.
func TestRunPreflights(t *testing.T) {
	t.Parallel()
	url := closedURL(t)
	res, err := steps.Run(context.Background(), steps.Options{Profile: profiles.Reference(url), Tags: "@payment-methods", Format: "progress", Output: io.Discard})
	require.ErrorIs(t, err, steps.ErrTarget)
	assert.Empty(t, res.Summary.Scenarios, "no scenario may run after a failed preflight")

	res, err = steps.Run(context.Background(), steps.Options{Profile: profiles.Reference(url), Tags: "@payment-methods", Format: "progress", Output: io.Discard, NoPreflight: true})
	assert.NotEmpty(t, res.Summary.Scenarios, "NoPreflight runs the scenarios")
	if err != nil {
		require.ErrorIs(t, err, steps.ErrTarget)
	}
}
