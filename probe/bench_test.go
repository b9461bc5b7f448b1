package probe_test

import (
	"context"
	"testing"

	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// BenchmarkProbe is what the probe adds to a conformance run against the
// embedded reference: a whole run with the defaults, the reference served
// in the same process as `make conformance` serves it. docs/performance.md
// has the figures.
func BenchmarkProbe(b *testing.B) {
	srv := httpapitest.NewServer(b)
	var requests int64
	for b.Loop() {
		res, err := probe.Run(context.Background(), probe.Options{Profile: profiles.Reference(srv.URL)})
		if err != nil || !res.OK() {
			b.Fatalf("%v %+v", err, res.Cases)
		}
		requests += res.Requests
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}
