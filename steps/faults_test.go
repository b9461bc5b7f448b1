package steps_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
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
				if sc.Status == verdict.StatusFailed {
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

// TestEveryFault runs the suite once against the reference with each of
// its faults (`reference --list-faults`) and reads the run twice:
//
//   - a fault that rewrites answers (a wire fault; a rule fault's answers
//     keep their shape) is reported at the pointer of the field it changed,
//     with its rule (httpapitest.ShapeFaults);
//   - one defect reads as one cause: the scenarios that fail, and those
//     blocked, are the ones testdata/faults.json declares for the fault, and
//     the run reports no more causes than it declares (one, or the number
//     it gives with why). docs/faults.md is the table of it.
//
// go test ./steps -run TestEveryFault -update writes both files from the
// runs; review the diff.
func TestEveryFault(t *testing.T) {
	sweep.NoRace(t)
	t.Parallel()
	declared := readFaultTable(t)
	var mu sync.Mutex
	seen := map[reference.Fault]faultRow{}
	t.Run("faults", func(t *testing.T) {
		for _, f := range reference.AllFaults() {
			t.Run(string(f), func(t *testing.T) {
				t.Parallel()
				srv := httpapitest.NewServer(t, f)
				res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 5 * time.Second})
				if !reference.IsRuleFault(f) {
					checkShapeFault(t, f, res)
				}
				got := faultRowOf(f, res)
				mu.Lock()
				seen[f] = got
				mu.Unlock()
				if *update {
					return
				}
				want, ok := declared[f]
				if !ok {
					t.Fatalf("fault %s is not in testdata/faults.json: run with -update and say why where it needs more than one cause", f)
				}
				assert.Equal(t, want.Failed, got.Failed, "the scenarios that fail against %s", f)
				assert.Equal(t, want.Blocked, got.Blocked, "the scenarios blocked against %s", f)
				assert.LessOrEqual(t, len(got.Causes), max(want.CauseCount(), 1), "fault %s reads as more causes than one defect: %s", f, strings.Join(got.Causes, "\n  "))
			})
		}
	})
	if *update {
		writeFaultTable(t, seen, declared)
		return
	}
	doc, err := os.ReadFile("../docs/faults.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), faultTableMarkdown(declared), "docs/faults.md is not the table of testdata/faults.json: run with -update")
}

// checkShapeFault: every failure against a wire fault that openapi.yaml
// judged names the pointer of the field the fault changed and its rule,
// and no fault changes a shape httpapitest.ShapeFaults does not know.
func checkShapeFault(t *testing.T, f reference.Fault, res steps.Result) {
	ptr, known := httpapitest.ShapeFaults[f]
	judged := 0
	for _, sc := range res.Summary.Scenarios {
		assert.NotRegexp(t, `at /?:\s*(\n|$)`, sc.Reason, sc.Name)
		if sc.Status != verdict.StatusFailed || sc.Cause == nil || sc.Cause.Field == "" {
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
}
