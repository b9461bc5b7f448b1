package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
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
	require.True(t, strings.HasPrefix(line, "listening on http"), line)
	return strings.TrimPrefix(line, "listening on "), cancel, done
}

func TestRunServesAndShutsDown(t *testing.T) {
	t.Parallel()
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--settle-after", "1s", "--log-level", "debug")

	code, body := call(t, base, http.MethodGet, "/client/v2/customer/profile", "tok-nusantara-funded", "")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "OK", body["message"])
	stop(t, cancel, done)
}

// TestRunRateLimit: with --rate-limit N, a secret key's requests past N
// in a second are answered 429 with the contract's error body.
func TestRunRateLimit(t *testing.T) {
	t.Parallel()
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--rate-limit", "3")
	codes := map[int]int{}
	for range 4 {
		code, body := call(t, base, http.MethodGet, "/client/v2/customer/profile", "tok-nusantara-funded", "")
		codes[code]++
		if code == http.StatusTooManyRequests {
			assert.Equal(t, httpapi.MsgRateLimited, body["message"])
		}
	}
	assert.Equal(t, map[int]int{http.StatusOK: 3, http.StatusTooManyRequests: 1}, codes)
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

	code, _ := call(t, base, http.MethodGet, "/client/v2/customer/profile", "tok-custom", "")
	assert.Equal(t, http.StatusOK, code)
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	cases := map[string][]string{
		"unknown flag":      {"--nope"},
		"bad log level":     {"--log-level", "loud"},
		"missing seed":      {"--seed", filepath.Join(t.TempDir(), "missing.yaml")},
		"bad address":       {"--addr", "not-an-address"},
		"extra arguments":   {"serve"},
		"negative rate":     {"--rate-limit", "-1"},
		"repair, no state":  {"--repair"},
		"cert, no key":      {"--tls-cert", "cert.pem"},
		"client CA, no TLS": {"--client-ca", "ca.pem"},
		"missing cert":      {"--tls-cert", "missing.pem", "--tls-key", "missing-key.pem"},
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
		return call(t, base, method, path, "tok-nusantara-funded", body)
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

// TestListFaults: --list-faults prints every fault of the reference once,
// sorted by name, each with its one line, and serves nothing.
func TestListFaults(t *testing.T) {
	t.Parallel()
	var stdout strings.Builder
	require.NoError(t, run(context.Background(), []string{"--list-faults"}, func(string) string { return "" }, &stdout, io.Discard))
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	require.Len(t, lines, len(reference.AllFaults()))
	var names []string
	for _, l := range lines {
		name, line, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		names = append(names, name)
		assert.Equal(t, reference.Fault(name).Describe(), strings.TrimSpace(line), "%s", l)
		assert.NotEmpty(t, strings.TrimSpace(line), "%s has its one line", name)
	}
	assert.True(t, slices.IsSorted(names), "sorted by name: %v", names)
	for _, f := range reference.AllFaults() {
		assert.Contains(t, names, string(f))
	}
}

// TestFaultFlag: --fault switches the named faults on: with
// product-without-logo and message-typo the products lack operator.logo
// and a payment's message its final period; without the flag both are as
// the document says.
func TestFaultFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args           []string
		logo           bool
		paymentMessage string
	}{
		{nil, true, "Pembayaran berhasil diproses."},
		{[]string{"--fault", "product-without-logo,message-typo"}, false, "Pembayaran berhasil diproses"},
		{[]string{"--fault", "product-without-logo", "--fault", "message-typo"}, false, "Pembayaran berhasil diproses"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			base, cancel, done := start(t, append([]string{"--addr", "127.0.0.1:0"}, tc.args...)...)
			defer stop(t, cancel, done)
			code, sync := call(t, base, http.MethodGet, "/client/v2/product/sync?sub_category=prabayar&page=1&pageSize=1", "tok-nusantara-main", "")
			require.Equal(t, http.StatusOK, code, "%v", sync)
			products, _ := sync["data"].(map[string]any)["products"].([]any)
			require.NotEmpty(t, products)
			_, logo := products[0].(map[string]any)["operator"].(map[string]any)["logo"]
			assert.Equal(t, tc.logo, logo, "operator.logo present")
			code, paid := call(t, base, http.MethodPost, "/client/v2/payment", "tok-nusantara-funded",
				`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"fault-flag-1"}`)
			require.Equal(t, http.StatusOK, code, "%v", paid)
			assert.Equal(t, tc.paymentMessage, paid["message"])
		})
	}
}

// call sends one request of partner 1 with token and decodes the answer.
func call(t *testing.T, base, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var m map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	return resp.StatusCode, m
}

// TestUnknownFaultIsAUsageError: a fault name that does not exist is a
// usage error (exit code 2) that names the faults there are; nothing is
// served.
func TestUnknownFaultIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"no-such-fault", "product-without-logo,no-such-fault"} {
		t.Run(arg, func(t *testing.T) {
			t.Parallel()
			var stdout strings.Builder
			err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--fault", arg}, func(string) string { return "" }, &stdout, io.Discard)
			require.Error(t, err)
			assert.Equal(t, 2, exitCode(err))
			assert.Contains(t, err.Error(), `unknown fault "no-such-fault"`)
			for _, f := range reference.AllFaults() {
				assert.Contains(t, err.Error(), string(f), "the error names the faults there are")
			}
			assert.Empty(t, stdout.String(), "nothing was served")
		})
	}
	assert.Equal(t, 2, exitCode(run(context.Background(), []string{"--nope"}, func(string) string { return "" }, io.Discard, io.Discard)), "an unknown flag")
	assert.Equal(t, 1, exitCode(run(context.Background(), []string{"--addr", "not-an-address"}, func(string) string { return "" }, io.Discard, io.Discard)), "a server that cannot start")
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
