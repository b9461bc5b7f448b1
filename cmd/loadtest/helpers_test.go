package main

import (
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"

	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

func startTestReference(t *testing.T) string {
	t.Helper()
	srv := httpapitest.NewServer(t)
	return srv.URL
}

func progressSample() loadtest.Progress {
	return loadtest.Progress{Elapsed: 2 * time.Second, Sent: 10, Done: 9, Rate: 5, P50: time.Millisecond, P99: 3 * time.Millisecond}
}
