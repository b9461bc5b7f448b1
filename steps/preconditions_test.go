package steps_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// TestPreconditionsAreNotVerdicts: a product without a logo is the
// products scenarios' to judge. A payment needs a product's id and price,
// so against the fault no payment scenario fails or is blocked, and the
// products scenarios that read the logo fail on it.
func TestPreconditionsAreNotVerdicts(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t, reference.FaultProductWithoutLogo)
	res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 5 * time.Second,
		Locations: []string{"../features/payments.feature", "../features/products.feature"}})
	productsFailed := 0
	for _, sc := range res.Summary.Scenarios {
		switch {
		case sc.Feature == "payments.feature":
			assert.Equal(t, verdict.StatusPassed, sc.Status, "%s: %s", sc.Name, sc.Reason)
		case sc.Status == verdict.StatusFailed:
			productsFailed++
			assert.Contains(t, sc.Reason, "logo", sc.Name)
		}
	}
	assert.Positive(t, productsFailed, "no products scenario noticed the missing logo")
	assert.Empty(t, res.Summary.NotJudgedGroups, "a payment was blocked")
}
