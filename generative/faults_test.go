package generative_test

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
)

// generatedFaults are the reference faults only the generated mode finds,
// with the property that finds each and what its reproduction shows.
var generatedFaults = []struct {
	fault    reference.Fault
	property string
	shows    string // in the failure or its reproduction
}{
	{reference.FaultMultiByteShiftCodePanics, "createPayment: requests that break", "shift_code of 51 multi-byte characters"},
	{reference.FaultPromotionZeroCrashes, "createPayment: valid requests", `"promotion_id":0`},
	{reference.FaultEmptyPartsCrashes, "createPayment: valid requests", `"parts":{}`},
	{reference.FaultInactiveProductDebitKept, "createPayment: valid requests", "a refused payment"},
	{reference.FaultZeroPageSizeCrashes, "syncProducts: requests that break", "pageSize=0"},
	{reference.FaultStaleWalletTakesCoins, "sequences", "Scenario:"},
	{reference.FaultDuplicateOverwritesProduct, "sequences", "pays again with the partner transaction id"},
	{reference.FaultReprovisionResetsWallet, "sequences", "provisions the phone number of the funded customer again"},
	{reference.FaultStatusAmountDrifts, "sequences", "looks up the payment"},
}

// TestGeneratedModeFindsItsFaults proves that each property can fail: with
// the default budget (100 examples, 25 steps) and a fixed seed, the
// generated mode finds each fault and prints a shrunk reproduction.
func TestGeneratedModeFindsItsFaults(t *testing.T) {
	for _, tc := range generatedFaults {
		t.Run(string(tc.fault), func(t *testing.T) {
			failed := failedProperties(t, tc.fault, tc.property, 2*time.Minute, 3*time.Second)
			p := failed[0]
			t.Logf("%s: %s\n%s", p.Name(), p.Failure, p.Reproduction)
			assert.NotEmpty(t, p.Reproduction)
			assert.Contains(t, p.Failure+"\n"+p.Reproduction, tc.shows)
		})
	}
}

// TestSuiteMissesGeneratedFaults proves that no hand-written scenario
// catches these faults: the whole suite passes against a reference with all
// of them switched on.
func TestSuiteMissesGeneratedFaults(t *testing.T) {
	faults := make([]reference.Fault, 0, len(generatedFaults))
	for _, tc := range generatedFaults {
		faults = append(faults, tc.fault)
	}
	srv := httpapitest.NewServer(t, faults...)
	res, err := steps.Run(context.Background(), steps.Options{
		BaseURL: srv.URL, Profile: profiles.Reference(srv.URL), Concurrency: 4,
		Format: "progress", Output: io.Discard, RequestTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	for _, sc := range res.Summary.Scenarios {
		assert.NotEqual(t, report.StatusFailed, sc.Status, "%s — %s\n%s", sc.Feature, sc.Name, sc.Reason)
	}
	assert.Positive(t, res.Passed)
}

// replay runs a feature file written by the generated mode with the suite
// against the target at url: the result of its one scenario, and the
// console.
func replay(t *testing.T, url, feature string) (report.ScenarioResult, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(url), Features: fstest.MapFS{"generated-1.feature": {Data: []byte(feature)}},
		Output: &out, RequestTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	require.Len(t, res.Summary.Scenarios, 1)
	return res.Summary.Scenarios[0], out.String()
}

// figures are the numbers of a message: the wallet a sequence ends with
// depends on the examples run before it.
var figures = regexp.MustCompile(`[0-9]+`)

// TestSequenceReproduces: for each fault only a stateful sequence finds,
// the failing sequence is written as a feature file of the suite's steps;
// the suite runs it against a fresh reference with the fault and fails at
// the check its last step names, worded as the generated mode worded it
// (up to the figures), and passes against the reference without the fault.
func TestSequenceReproduces(t *testing.T) {
	for _, fault := range []reference.Fault{reference.FaultStaleWalletTakesCoins, reference.FaultReprovisionResetsWallet,
		reference.FaultStatusAmountDrifts, reference.FaultDuplicateOverwritesProduct, reference.FaultProvisionCreatedAs200, reference.FaultDuplicateTrxAccepted} {
		t.Run(string(fault), func(t *testing.T) {
			p := failedProperties(t, fault, "sequences", time.Minute, 2*time.Second)[0]
			require.NotEmpty(t, p.Feature)
			lines := strings.Split(strings.TrimSpace(p.Feature), "\n")
			then := strings.TrimSpace(lines[len(lines)-1])
			require.True(t, strings.HasPrefix(then, "Then "), "the feature ends with the check: %s", p.Feature)

			got, console := replay(t, httpapitest.NewServer(t, fault).URL, p.Feature)
			require.Equal(t, report.StatusFailed, got.Status, "%s\n%s", p.Feature, console)
			assert.Contains(t, figures.ReplaceAllString(got.Reason, "N"), figures.ReplaceAllString(p.Failure, "N"), "the same message")
			assert.Regexp(t, "✗ "+regexp.QuoteMeta(then), console, "the same check fails")

			got, console = replay(t, httpapitest.NewServer(t).URL, p.Feature)
			assert.Equal(t, report.StatusPassed, got.Status, "%s\n%s", p.Feature, console)
		})
	}
}
