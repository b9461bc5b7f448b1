package httpapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/httpapi"
)

func TestServeLoopbackServesUntilStopped(t *testing.T) {
	ctx := context.Background()
	url, stop, err := httpapi.ServeLoopback(ctx, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, url)

	get := func() (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/client/v2/customer/profile", nil)
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
		req.Header.Set("Authorization", "Bearer tok-nusantara-funded")
		return http.DefaultClient.Do(req)
	}
	resp, err := get()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, resp.Body.Close())

	stop()
	http.DefaultClient.CloseIdleConnections()
	resp, err = get()
	if err == nil {
		_ = resp.Body.Close()
	}
	assert.Error(t, err, "the server still answers after stop")
}
