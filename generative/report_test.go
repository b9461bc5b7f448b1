package generative_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/verdict"
)

// TestReportCountsInTheSingular: a run of one property of one example and
// one request says so in the singular.
func TestReportCountsInTheSingular(t *testing.T) {
	t.Parallel()
	p := generative.PropertyResult{Operation: "listPaymentMethods", Property: "valid requests with varied values", Status: verdict.StatusPassed, Examples: 1}
	var b bytes.Buffer
	generative.PrintProperty(&b, p)
	generative.PrintSummary(&b, generative.Result{Properties: []generative.PropertyResult{p}, Requests: 1, Seed: 7})
	out := b.String()
	assert.Contains(t, out, "(1 example)\n")
	assert.Contains(t, out, "\n1 property: 1 passed (0 with warnings), 0 failed, 0 not run; 1 request in ")
	assert.NotRegexp(t, `\b1 (examples|properties|requests)\b`, out)
}
