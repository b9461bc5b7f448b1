package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// The test binary stands in for the servers perf starts: "serve" runs perf's
// own baselines, and PERF_FAKE_REFERENCE=1 makes it the reference binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	if os.Getenv("PERF_FAKE_REFERENCE") == "1" && len(os.Args) > 2 && os.Args[1] == "--addr" {
		ds, _ := reference.DefaultDataset()
		var opts []reference.Option
		if i := slices.Index(os.Args, "--state"); i > 0 && i+1 < len(os.Args) {
			opts = append(opts, reference.WithState(os.Args[i+1]))
		}
		if slices.Contains(os.Args, "--metrics-addr") {
			m := httpapi.NewMetrics()
			ml, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
			if err != nil {
				os.Exit(2)
			}
			_, _ = os.Stdout.WriteString("metrics on http://" + ml.Addr().String() + "/metrics\n")
			go func() { _ = (&http.Server{Handler: m.Handler()}).Serve(ml) }() //nolint:gosec // test child on loopback
			opts = append(opts, reference.WithCommitObserver(m.Commit))
		}
		st, err := reference.NewStore(ds, opts...)
		if err != nil {
			os.Exit(2)
		}
		ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", os.Args[2])
		if err != nil {
			os.Exit(2)
		}
		_, _ = os.Stdout.WriteString("listening on http://" + ln.Addr().String() + "\n")
		_ = (&http.Server{Handler: httpapi.NewServer(slog.New(slog.DiscardHandler), st)}).Serve(ln) //nolint:gosec // test child on loopback
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRunRefusesBadFlags(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--only", "speed"}, `unknown measurement "speed"`},
		{[]string{"--stored", "0,500,100"}, "ascending"},
		{[]string{"--stored", "x"}, "ascending"},
		{[]string{"--rounds", "0"}, "at least 1"},
		{[]string{"--stored-windows", "0"}, "at least 1"},
		{[]string{"--window", "10ms"}, "at least 1s"},
		{[]string{"--floor-window", "1ms"}, "at least 10ms"},
		{[]string{"--durable-connections", "16,x"}, "not a list of connection counts"},
		{[]string{"--reference", "/nonexistent/reference"}, "make perf builds bin/reference"},
		{[]string{"--reference", self, "--client", "curl"}, `"curl" is not wrk, go or auto`},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"--only", "generators", "--loadtest", "/nonexistent/loadtest"}, "make perf builds bin/loadtest"},
		{[]string{"--only", "generators", "--loadtest", self, "--gen-rates", "5000,x"}, "not a list of rates"},
		{[]string{"serve", "nginx"}, `"nginx" is not static or target`},
	} {
		var out, errb bytes.Buffer
		err := run(t.Context(), tc.args, &out, &errb)
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want, tc.args)
	}
	var out, errb bytes.Buffer
	assert.True(t, errors.Is(run(t.Context(), []string{"--help"}, &out, &errb), flag.ErrHelp))
	assert.Contains(t, errb.String(), "usage: perf")
}

func TestRunPrintsTheRatioTable(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	t.Setenv("PERF_FAKE_REFERENCE", "1")
	var out, errb bytes.Buffer
	err = run(t.Context(), []string{"--only", "ratio,stored", "--reference", self, "--client", "go", "--connections", "2",
		"--rounds", "1", "--window", "1s", "--warmup", "0s", "--stored", "0,2000", "--stored-window", "1s", "--stored-windows", "1", "--fill", "2"}, &out, &errb)
	require.NoError(t, err, errb.String())
	got := out.String()
	assert.Contains(t, got, "Client: Go client, 2 connections.")
	assert.Contains(t, got, "| POST payment, reference / static-JSON handler |")
	assert.Regexp(t, `\| Payment rate at \d+k? stored / at 0 \| \d+\.\d\d \|`, got)
	assert.Equal(t, 2, strings.Count(errb.String(), "perf: round 1:"), errb.String())
}

// TestRunPrintsTheDurableRatioAtEachConnectionCount: --durable-connections
// lists the client's connection counts, and the table has the durable
// ratio's rows for each.
func TestRunPrintsTheDurableRatioAtEachConnectionCount(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	t.Setenv("PERF_FAKE_REFERENCE", "1")
	var out, errb bytes.Buffer
	err = run(t.Context(), []string{"--only", "durable", "--reference", self, "--client", "go", "--durable-connections", "2,4",
		"--rounds", "1", "--window", "1s", "--warmup", "0s", "--floor-window", "50ms"}, &out, &errb)
	require.NoError(t, err, errb.String())
	for _, n := range []string{"2", "4"} {
		assert.Regexp(t, `\| POST payment, reference --state / in memory, `+n+` connections \| \d+\.\d\d \|`, out.String())
		assert.Regexp(t, `\| POST payment, reference --state / its fdatasync-floor model, `+n+` connections \| \d+\.\d\d \|`, out.String())
		assert.Regexp(t, `\| Bytes on disk per payment \(--state\), `+n+` connections \| \d+ B \|`, out.String())
	}
}
