package loadtest_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestShapeFaultsAreReportedAtTheirField: against each fault that changes
// the shape of an answer the load tester judges, its contract violations
// (the schema is judged on a sample of the answers) name the pointer of
// the field the fault changed: as their rule, or, where another rule of
// the document counts every answer of the defect (a transaction number
// without a slash breaks contract.CheckCreated too), in the finding's
// request and answer.
func TestShapeFaultsAreReportedAtTheirField(t *testing.T) {
	t.Parallel()
	for f, ptr := range httpapitest.ShapeFaults {
		switch f {
		case reference.FaultErrorsAsText:
			continue // a body that is not JSON fails the envelope check of every answer
		case reference.FaultCustomerIDAsString:
			continue // the load tester judges no profile answer: it reads profiles for their wallets only
		}
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			_, rep := run(t, startReference(t, f), loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithReconcile(false),
				loadtest.WithLoad(constant(100, time.Second)))
			out := text(t, rep)
			require.Positive(t, rep.Contract.Violations, out)
			judged := 0
			verdicts := slices.Collect(maps.Keys(rep.Contract.ByRule))
			for _, f := range rep.Findings {
				if f.Exhibit != nil {
					verdicts = append(verdicts, f.Exhibit.Detail)
				}
			}
			for _, v := range verdicts {
				if strings.Contains(v, "openapi.yaml") {
					judged++
					assert.Contains(t, v, "at "+ptr, out)
				}
			}
			assert.Positive(t, judged, "no answer was judged against openapi.yaml:\n%s", out)
		})
	}
}
