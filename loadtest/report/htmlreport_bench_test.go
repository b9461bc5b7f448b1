package report_test

import (
	"io"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// BenchmarkWriteHTML renders the load page of a run of 100,000 requests
// over 10 minutes (figures in docs/performance.md).
func BenchmarkWriteHTML(b *testing.B) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hits := make([]record.HitResult, 100_000)
	for i := range hits {
		at := start.Add(time.Duration(i) * 6 * time.Millisecond)
		hits[i].Result = record.Result{
			Result:    vegeta.Result{Attack: "create", Seq: uint64(i), Code: 200, Timestamp: at.Add(time.Millisecond), Latency: time.Duration(1+i%50) * time.Millisecond},
			Scheduled: at, Op: "create", Expected: true, Allowed: true,
		}
	}
	rec := recordtest.Record(b, &record.Run{Meta: record.Meta{Settings: record.Settings{RunID: "bench", Scenario: "create", Shard: record.SingleShard}, Began: start}}, hits...)
	rep := report.BuildReport(rec, nil, nil)
	var size countingWriter
	b.ReportAllocs()
	for b.Loop() {
		size = 0
		if err := report.HTML(rec, rep)(&size); err != nil {
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
