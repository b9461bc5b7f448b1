// Package httpapitest starts the reference server for tests of the packages
// that talk to it (the suite, the load tester, the generated mode, the
// commands), as net/http/httptest does for a handler.
package httpapitest

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// NewServer serves the embedded data set with the given faults on a
// loopback port until the test ends; its logs are discarded.
func NewServer(tb testing.TB, faults ...reference.Fault) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(handler(tb, faults...))
	tb.Cleanup(srv.Close)
	return srv
}

// NewServerAnswering is NewServer, except that every request to path is
// answered with status and a failure body carrying message (a server that
// fails one endpoint, as a system fault does).
func NewServerAnswering(tb testing.TB, path string, status int, message string) *httptest.Server {
	tb.Helper()
	ref := handler(tb)
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
func handler(tb testing.TB, faults ...reference.Fault) http.Handler {
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
// answer it changes ("" for the body as a whole). Every judge's tests run
// them: each failure that openapi.yaml judged names that pointer.
var ShapeFaults = map[reference.Fault]string{
	reference.FaultProductWithoutLogo:    "/data/products/0/operator/logo",
	reference.FaultCustomerIDAsString:    "/data/customer/id",
	reference.FaultTrxNumberWithoutSlash: "/data/transaction/transaction_number",
	reference.FaultErrorsAsText:          "",
}
