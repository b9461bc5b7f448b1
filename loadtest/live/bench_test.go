package live_test

import (
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// BenchmarkObserve is what --prometheus-addr costs the collector per
// result: vegeta's lib/prom Observe and the tester's own counters (and
// the recorder's, which a run pays anyway).
func BenchmarkObserve(b *testing.B) {
	m, err := live.New(lateAfter, thresholds(b, "success>=99"))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	rs := make([]record.Result, 1024)
	for i := range rs {
		rs[i] = scripted(i, start)
	}
	observe := observer(b, m)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		observe(&rs[i%len(rs)])
	}
}
