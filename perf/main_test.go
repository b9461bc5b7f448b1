package perf

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// The measurements run servers as child processes; the tests run this test
// binary as the child, with PERF_TEST_SERVE naming what it serves.
func TestMain(m *testing.M) {
	if kind := os.Getenv("PERF_TEST_SERVE"); kind != "" {
		if err := serveForTest(kind); err != nil {
			_, _ = os.Stderr.WriteString("serve: " + err.Error() + "\n")
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveForTest(kind string) error {
	var h http.Handler
	var err error
	switch kind {
	case "static":
		h, err = StaticHandler()
	case "reference":
		var ds *reference.Dataset
		if ds, err = reference.DefaultDataset(); err == nil {
			var opts []reference.Option
			if i := slices.Index(os.Args, "--state"); i > 0 && i+1 < len(os.Args) { // appended by Durable
				opts = append(opts, reference.WithState(os.Args[i+1]))
			}
			if slices.Contains(os.Args, "--metrics-addr") { // appended by Durable
				var m *httpapi.Metrics
				if m, err = serveTestMetrics(); err != nil {
					return err
				}
				opts = append(opts, reference.WithCommitObserver(m.Commit))
			}
			var st *reference.Store
			if st, err = reference.NewStore(ds, opts...); err == nil {
				h = httpapi.NewServer(slog.New(slog.DiscardHandler), st)
			}
		}
	case "refuse": // answers every request with 409, as a reference refusing reused ids would
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusConflict) })
	case "exit":
		return errors.New("told to exit before listening")
	default:
		return errors.New("unknown kind " + kind)
	}
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	_, _ = os.Stdout.WriteString("listening on http://" + ln.Addr().String() + "\n")
	return (&http.Server{Handler: h}).Serve(ln) //nolint:gosec // a test child on loopback, killed by the test
}

// serveTestMetrics serves the reference's metrics on a free loopback port
// and prints their address as the reference does, before its own.
func serveTestMetrics() (*httpapi.Metrics, error) {
	m := httpapi.NewMetrics()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	_, _ = os.Stdout.WriteString("metrics on http://" + ln.Addr().String() + "/metrics\n")
	go func() { _ = (&http.Server{Handler: m.Handler()}).Serve(ln) }() //nolint:gosec // a test child on loopback, killed by the test
	return m, nil
}

// child is a launcher running this test binary as a server of kind.
func child(t *testing.T, kind string) Launcher {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Launcher{Name: kind, Argv: []string{"/usr/bin/env", "PERF_TEST_SERVE=" + kind, self}}
}
