package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunServesProfiles: --pprof-addr serves the runtime's profiles on
// their own listener, and the API's listener serves none of them.
func TestRunServesProfiles(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, []string{"--addr", "127.0.0.1:0", "--pprof-addr", "127.0.0.1:0", "--log-level", "error"},
			func(string) string { return "" }, pw, io.Discard)
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "no output from run")
	profiles := strings.TrimPrefix(lines.Text(), "pprof on ")
	require.True(t, strings.HasPrefix(profiles, "http://"), lines.Text())
	require.True(t, lines.Scan(), "no output from run")
	base := strings.TrimPrefix(lines.Text(), "listening on ")
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	get := func(url string) (int, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }() // read whole below
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get(profiles + "heap?debug=1")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "heap profile")
	code, _ = get(profiles + "profile?seconds=1")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get(base + "/debug/pprof/")
	assert.Equal(t, http.StatusNotFound, code, "the API's listener serves no profile")

	cancel()
	require.NoError(t, <-done)
}
