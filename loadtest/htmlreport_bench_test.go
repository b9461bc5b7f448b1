package loadtest_test

import (
	"io"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/loadtest"
)

// BenchmarkWriteHTML renders the load page of a run of 100,000 requests
// over 10 minutes (figures in docs/performance.md).
func BenchmarkWriteHTML(b *testing.B) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := &loadtest.Outcome{Meta: loadtest.Meta{RunID: "bench", Scenario: "create", Shard: loadtest.SingleShard, Began: start}}
	for i := range 100_000 {
		at := start.Add(time.Duration(i) * 6 * time.Millisecond)
		o.Results = append(o.Results, loadtest.Result{
			Result:    vegeta.Result{Attack: "create", Seq: uint64(i), Code: 200, Timestamp: at.Add(time.Millisecond), Latency: time.Duration(1+i%50) * time.Millisecond},
			Scheduled: at, Op: "create", Expected: true, Allowed: true,
		})
	}
	rep := loadtest.BuildReport(o, nil, nil)
	var size countingWriter
	b.ReportAllocs()
	for b.Loop() {
		size = 0
		if err := loadtest.WriteHTML(&size, o, rep); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "page-bytes")
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
