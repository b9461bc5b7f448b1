package steps

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/throttle"
)

// TestOversizedBodyKeepsOnlyTheFailurePrefix: an answer larger
// than the read limit fails, and the exchange kept for the failure's text
// holds a copy of the prefix it prints, not the 1 MiB read buffer.
func TestOversizedBodyKeepsOnlyTheFailurePrefix(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("x", 64<<10))
		for range 40 { // 2.5 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	s := &scenario{h: &harness{http: srv.Client(), timeout: 5 * time.Second, coverage: newCoverage(), gate: throttle.New(throttle.Options{})}}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/client/v2/payment/methods", nil)
	require.NoError(t, err)
	resp, err := (&recorder{s: s}).Do(req)
	if resp != nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than")
	require.NotNil(t, s.last)
	assert.Len(t, s.last.RespBody, failureBodyLimit)
	assert.LessOrEqual(t, cap(s.last.RespBody), failureBodyLimit, "the failure must not hold the read buffer")
}
