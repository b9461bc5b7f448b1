package side_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/side"
)

// TestServeAndClose: a side server answers on the address it bound (port
// 0 picks one), serves the profiles' index, and after Close accepts no
// request; closing a nil server does nothing.
func TestServeAndClose(t *testing.T) {
	t.Parallel()
	s, err := side.Listen(t.Context(), "127.0.0.1:0", side.Profiles(), nil)
	require.NoError(t, err)
	url := "http://" + s.Addr() + "/debug/pprof/"
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, strings.Contains(string(body), "goroutine"), "the profiles' index")

	require.NoError(t, s.Close(context.Background()))
	req, err = http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatal("a closed side server answered")
	}
	var none *side.Server
	assert.NoError(t, none.Close(context.Background()))
}
