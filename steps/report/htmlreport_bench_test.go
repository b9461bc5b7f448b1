package report_test

import (
	"bytes"
	"testing"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// BenchmarkWriteHTMLDocumentation reads the feature files and renders the
// living documentation page, as conformance docs does (figures in
// docs/performance.md).
func BenchmarkWriteHTMLDocumentation(b *testing.B) {
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := report.WriteLivingDocs(&buf, stepstest.Features(b, features.FS), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "page-bytes")
}
