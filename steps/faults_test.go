package steps_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// TestSuiteDetectsFaults proves the suite can fail: against a reference
// built with one fault, the scenario meant to detect it
// (stepstest.FaultScenarios) fails, run alone (scenarios never share state,
// so it fails as well in a whole run). A fault that breaks only a reading
// (a warning in a normal run) is run strict, where a failed reading fails
// its scenario.
func TestSuiteDetectsFaults(t *testing.T) {
	sweep.NoRace(t)
	t.Parallel()
	for _, tc := range stepstest.FaultScenarios {
		t.Run(string(tc.Fault), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServer(t, tc.Fault)
			at, err := stepstest.Locate(tc.Scenario)
			require.NoError(t, err)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, Locations: []string{at}, Strict: tc.Strict,
				RequestTimeout: 5 * time.Second})
			require.Positive(t, res.Failed, "the fault %s went unnoticed", tc.Fault)
			var names []string
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == report.StatusFailed {
					names = append(names, sc.Name)
					if sc.Name == tc.Scenario {
						assert.NotEmpty(t, sc.Reason)
						return
					}
				}
			}
			t.Errorf("fault %s: scenario %q did not fail; failed were:\n  %s", tc.Fault, tc.Scenario, strings.Join(names, "\n  "))
		})
	}
}

// TestEveryShapeFaultIsReportedAtItsField runs the suite against the
// reference with each fault that rewrites answers (the wire faults; a
// rule fault's answers keep their shape): every failure that openapi.yaml
// judged names the pointer of the field the fault changed and its rule,
// and no fault changes a shape this test does not know.
func TestEveryShapeFaultIsReportedAtItsField(t *testing.T) {
	sweep.NoRace(t)
	t.Parallel()
	for _, f := range reference.AllFaults() {
		if reference.IsRuleFault(f) {
			continue
		}
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServer(t, f)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 5 * time.Second})
			ptr, known := httpapitest.ShapeFaults[f]
			judged := 0
			for _, sc := range res.Summary.Scenarios {
				assert.NotRegexp(t, `at /?:\s*(\n|$)`, sc.Reason, sc.Name)
				if sc.Status != report.StatusFailed || sc.Cause == nil || sc.Cause.Field == "" {
					continue
				}
				judged++
				require.True(t, known, "fault %s changes the shape of an answer (%s): add it to httpapitest.ShapeFaults", f, sc.Cause.Headline)
				want := "at " + ptr + ": "
				if ptr == "" {
					want = "the body: "
				}
				assert.Contains(t, sc.Reason, want, sc.Name)
				assert.NotEmpty(t, sc.Cause.Rule, sc.Name)
			}
			if known {
				assert.Positive(t, judged, "no scenario caught fault %s through openapi.yaml", f)
			}
		})
	}
}
