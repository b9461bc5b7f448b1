package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// start runs run() in the background and returns the base URL it prints.
func start(t *testing.T, args ...string) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, func(string) string { return "" }, pw, io.Discard)
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan(), "no output from run")
	line := lines.Text()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.True(t, strings.HasPrefix(line, "listening on http://"), line)
	return strings.TrimPrefix(line, "listening on "), cancel, done
}

func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--settle-after", "1s", "--log-level", "debug")

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/client/v2/customer/profile", nil)
	require.NoError(t, err)
	req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
	req.Header.Set("Authorization", "Bearer tok-nusantara-funded")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "OK", body["message"])
	stop(t, cancel, done)
}

// stop cancels a run started by start and checks that it returns cleanly.
func stop(t *testing.T, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunSeedFile(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "reference", "dataset", "default.yaml"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "seed.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(src), "tok-nusantara-funded", "tok-custom")), 0o600))
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--seed", path)
	defer func() { cancel(); assert.NoError(t, <-done) }()

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/client/v2/customer/profile", nil)
	require.NoError(t, err)
	req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
	req.Header.Set("Authorization", "Bearer tok-custom")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	cases := map[string][]string{
		"unknown flag":     {"--nope"},
		"bad log level":    {"--log-level", "loud"},
		"missing seed":     {"--seed", filepath.Join(t.TempDir(), "missing.yaml")},
		"bad address":      {"--addr", "not-an-address"},
		"extra arguments":  {"serve"},
		"repair, no state": {"--repair"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), args, env, io.Discard, io.Discard)
			assert.Error(t, err)
		})
	}
}

// TestHelpAndVersionExitZero: --help and --version are not errors.
func TestHelpAndVersionExitZero(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h", "--version"} {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr strings.Builder
			require.NoError(t, run(context.Background(), []string{arg}, func(string) string { return "" }, &stdout, &stderr))
			if arg == "--version" {
				assert.Contains(t, stdout.String(), "spec sha256:")
				assert.Contains(t, stdout.String(), "suite version:")
			} else {
				assert.Contains(t, stderr.String(), "REFERENCE_ADDR")
			}
		})
	}
}

// TestHelpSaysStateIsInMemory: --help says that all state is
// kept in memory and lost on restart, and offers the connection cap.
func TestHelpSaysStateIsInMemory(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	require.NoError(t, run(context.Background(), []string{"--help"}, func(string) string { return "" }, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "kept in memory only and is lost when the server stops")
	assert.Contains(t, stderr.String(), "-max-conns")
}

// TestRunStateSurvivesRestart pays once with --state, stops, starts again
// over the same directory and finds the payment.
func TestRunStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	do := func(base, method, path, body string) (int, map[string]any) {
		req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
		req.Header.Set("Authorization", "Bearer tok-nusantara-funded")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return resp.StatusCode, m
	}
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--state", dir)
	code, _ := do(base, http.MethodPost, "/client/v2/payment",
		`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"run-state-1"}`)
	require.Equal(t, http.StatusOK, code)
	_, profile := do(base, http.MethodGet, "/client/v2/customer/profile", "")
	stop(t, cancel, done)

	base, cancel, done = start(t, "--addr", "127.0.0.1:0", "--state", dir)
	defer stop(t, cancel, done)
	code, status := do(base, http.MethodGet, "/client/v2/payment/status?partner_trx_id=run-state-1", "")
	assert.Equal(t, http.StatusOK, code, "%v", status)
	_, again := do(base, http.MethodGet, "/client/v2/customer/profile", "")
	assert.Equal(t, profile, again, "the wallet after the restart")
}

// TestRunLogsTheJournal: with --state the server's log says what its start
// found in the journal.
func TestRunLogsTheJournal(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--addr", "127.0.0.1:0", "--state", t.TempDir()}, func(string) string { return "" }, pw, &stderr)
		_ = pw.Close()
	}()
	_, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	cancel()
	require.NoError(t, <-done)
	assert.Contains(t, stderr.String(), `level=INFO msg="state journal replayed"`)
}
