package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// threeOutcomes is a scenario that fails on its third step (the target
// answers the profile with a 500 section 7 does not give), one that passes
// and one the profile cannot run.
const threeOutcomes = `Feature: Three outcomes

  Scenario: Fails on its third step
    Given a cashier provisioned by the partner
    When the cashier reads its profile
    Then the answer comes back with status 200 and the message "OK"
    And the answer comes back with status 200 and the message "OK"

  Scenario: Passes
    Given the partner's main account

  @funded
  Scenario: Needs the funded customer
    Given the funded customer of the partner
    When the funded customer reads its profile
`

// TestFormatterCollectsWhatGodogRan: the suite reports through godog's
// formatter API, one scenario at a time or four at once: each scenario is
// written to the console once, whole, with every step as godog ran it (the
// steps after a failure not run), and cucumber.json holds godog's statuses
// and times of the steps with the verdict of the suite's checks.
func TestFormatterCollectsWhatGodogRan(t *testing.T) {
	t.Parallel()
	for _, concurrency := range []int{1, 4} {
		t.Run(fmt.Sprint(concurrency), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServerAnswering(t, "/client/v2/customer/profile", http.StatusInternalServerError, "Terjadi kesalahan sistem.")
			prof := profiles.Reference(srv.URL)
			prof.FundedCustomer = nil
			var out bytes.Buffer
			dir := t.TempDir()
			res, err := steps.Run(context.Background(), steps.Options{
				Profile: prof, Features: stepstest.Features(t, fstest.MapFS{"three.feature": {Data: []byte(threeOutcomes)}}),
				Concurrency: concurrency, Output: &out, ReportDir: dir, RequestTimeout: 5 * time.Second,
			})
			require.NoError(t, err)
			byName := map[string]verdict.Case{}
			for _, r := range res.Summary.Scenarios {
				byName[r.Name] = r
			}
			require.Len(t, byName, 3, out.String())
			failed := byName["Fails on its third step"]
			assert.Equal(t, verdict.StatusFailed, failed.Status)
			var statuses []string
			for _, st := range failed.Steps {
				statuses = append(statuses, st.Status)
			}
			assert.Equal(t, []string{"passed", "passed", "failed", "skipped"}, statuses)
			assert.Equal(t, verdict.StatusPassed, byName["Passes"].Status)
			assert.Equal(t, verdict.StatusSkipped, byName["Needs the funded customer"].Status)

			console := out.String()
			for name := range byName {
				assert.Equal(t, 1, strings.Count(console, " "+name+" "), "%s is written once: %s", name, console)
			}
			assert.Contains(t, console, "✗ Then the answer comes back with status 200")
			assert.Contains(t, console, "  - And the answer comes back with status 200", "the step after the failure is not run")
			assertCucumberSteps(t, filepath.Join(dir, "cucumber.json"))
		})
	}
}

// assertCucumberSteps: in the cucumber.json at path, the failed scenario's
// steps carry godog's statuses, the times of those that ran and where
// the definitions godog matched to them are registered, and the skipped
// scenario says why.
func assertCucumberSteps(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var feats []struct {
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Match struct {
					Location string `json:"location"`
				} `json:"match"`
				Result struct {
					Status   string `json:"status"`
					Error    string `json:"error_message"`
					Duration *int64 `json:"duration"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(data, &feats))
	require.Len(t, feats, 1)
	require.Len(t, feats[0].Elements, 3, "in file order")
	steps := feats[0].Elements[0].Steps
	require.Len(t, steps, 4)
	// Where the definition godog matched to each step is registered.
	defined := []string{"products.go", "customers.go", "scenario.go", "scenario.go"}
	for i, st := range steps {
		assert.Regexp(t, `^`+regexp.QuoteMeta(defined[i])+`:[0-9]+$`, st.Match.Location, "step %d", i)
		assert.Equal(t, i < 3, st.Result.Duration != nil, "step %d has a duration only when it ran", i)
	}
	assert.Equal(t, "failed", steps[2].Result.Status)
	assert.Contains(t, steps[2].Result.Error, "expected:")
	assert.Equal(t, "skipped", steps[3].Result.Status)
	skipped := feats[0].Elements[2].Steps
	require.NotEmpty(t, skipped)
	assert.Contains(t, skipped[0].Result.Error, "profile lacks funded_customer.token")
}
