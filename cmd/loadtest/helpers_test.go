package main

import (
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

func startTestReference(t *testing.T) string {
	t.Helper()
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.DiscardHandler), st))
	t.Cleanup(srv.Close)
	return srv.URL
}

func progressSample() loadtest.Progress {
	return loadtest.Progress{Elapsed: 2 * time.Second, Sent: 10, Done: 9, Rate: 5, P50: time.Millisecond, P99: 3 * time.Millisecond}
}
