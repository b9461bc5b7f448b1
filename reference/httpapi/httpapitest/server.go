// Package httpapitest starts the reference server for tests of the packages
// that talk to it (the suite, the load tester, the generated mode, the
// commands), as net/http/httptest does for a handler.
package httpapitest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// NewServer serves the embedded data set with the given faults on a
// loopback port until the test ends; its logs are discarded.
func NewServer(tb testing.TB, faults ...reference.Fault) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(Handler(tb, faults...))
	tb.Cleanup(srv.Close)
	return srv
}

// NewTLSServer is NewServer over HTTPS with cfg: its certificate and, for
// mutual TLS, the CAs of the clients it accepts (httpapi.ServerTLS makes
// it as the reference's --tls-cert, --tls-key and --client-ca do). Its
// handshake failures are not logged.
func NewTLSServer(tb testing.TB, cfg *tls.Config, faults ...reference.Fault) *httptest.Server {
	tb.Helper()
	return ServeTLS(tb, Handler(tb, faults...), cfg)
}

// ServeTLS serves h over HTTPS with cfg until the test ends, for a test
// that puts something in front of the reference (a gateway); its
// handshake failures are not logged.
func ServeTLS(tb testing.TB, h http.Handler, cfg *tls.Config) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = cfg
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	return srv
}

// NewLateServer is NewServer started after delay, as CI starts a server
// beside the run that tests it: until then its loopback address, in the
// URL it returns at once, refuses connections.
func NewLateServer(tb testing.TB, delay time.Duration) string {
	tb.Helper()
	ln, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Addr: addr, Handler: Handler(tb), ReadHeaderTimeout: time.Second}
	start := time.AfterFunc(delay, func() { _ = srv.ListenAndServe() })
	tb.Cleanup(func() { start.Stop(); _ = srv.Close() })
	return "http://" + addr
}

// NewServerAnswering is NewServer, except that every request to path is
// answered with status and a failure body carrying message (a server that
// fails one endpoint, as a system fault does).
func NewServerAnswering(tb testing.TB, path string, status int, message string) *httptest.Server {
	tb.Helper()
	ref := Handler(tb)
	body, _ := json.Marshal(map[string]any{"status": false, "message": message})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			ref.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// handler is the reference over the embedded data set with the faults.
// Handler is the reference's handler over the embedded data set with the
// given faults, for a test that serves it behind something of its own.
func Handler(tb testing.TB, faults ...reference.Fault) http.Handler {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	if err != nil {
		tb.Fatalf("the embedded data set: %v", err)
	}
	st, err := reference.NewStore(ds, reference.WithFaults(faults...))
	if err != nil {
		tb.Fatalf("the reference store: %v", err)
	}
	return httpapi.NewServer(slog.New(slog.DiscardHandler), st)
}

// ShapeFaults are the faults that change the shape of an answer (a field
// missing, of another type or out of its pattern, or a body that is not
// JSON), each with the JSON pointer of the value it changes in the first
// answer it changes ("" for the body as a whole), as their declarations say
// (reference.FaultSpec.Shape). Every judge's tests run them: each failure
// that openapi.yaml judged names that pointer.
var ShapeFaults = reference.Faults().Shapes()
