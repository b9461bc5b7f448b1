package generative_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// newReference starts the reference server with the given faults.
func newReference(tb testing.TB, faults ...reference.Fault) *httptest.Server {
	tb.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(tb, err)
	st, err := reference.NewStore(ds, reference.WithFaults(faults...))
	require.NoError(tb, err)
	srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.NewTextHandler(io.Discard, nil)), st))
	tb.Cleanup(srv.Close)
	return srv
}

func run(tb testing.TB, url string, examples int, only string) generative.Result {
	tb.Helper()
	res, err := generative.Run(context.Background(), generative.Options{
		Profile:  profiles.Reference(url),
		Examples: examples,
		Duration: 2 * time.Minute,
		Seed:     1,
		Only:     only,
	})
	require.NoError(tb, err)
	return res
}

// TestReferencePasses runs the generated mode against the reference: every
// property passes.
func TestReferencePasses(t *testing.T) {
	srv := newReference(t)
	res := run(t, srv.URL, 30, "")
	t.Logf("%d requests in %.1fs", res.Requests, res.Seconds)
	for _, p := range res.Properties {
		if p.Status != generative.StatusPassed {
			t.Errorf("%s: %s\n%s", p.Name(), p.Failure, p.Reproduction)
		}
		for _, w := range p.Warnings {
			t.Logf("%s: %s", p.Name(), strings.TrimSpace(w.String()))
		}
	}
}
