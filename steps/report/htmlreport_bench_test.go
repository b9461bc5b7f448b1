package report_test

import (
	"bytes"
	"testing"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// BenchmarkWriteHTMLDocumentation renders the living documentation page
// from the feature files (figures in docs/performance.md).
func BenchmarkWriteHTMLDocumentation(b *testing.B) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := report.WriteHTMLReport(&buf, stepstest.Features(b, features.FS), nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "page-bytes")
}
