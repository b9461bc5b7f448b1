// Package httpapitest starts the reference server for tests of the packages
// that talk to it (the suite, the load tester, the generated mode, the
// commands), as net/http/httptest does for a handler.
package httpapitest

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// NewServer serves the embedded data set with the given faults on a
// loopback port until the test ends; its logs are discarded.
func NewServer(tb testing.TB, faults ...reference.Fault) *httptest.Server {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	if err != nil {
		tb.Fatalf("the embedded data set: %v", err)
	}
	st, err := reference.NewStore(ds, reference.WithFaults(faults...))
	if err != nil {
		tb.Fatalf("the reference store: %v", err)
	}
	srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.DiscardHandler), st))
	tb.Cleanup(srv.Close)
	return srv
}
