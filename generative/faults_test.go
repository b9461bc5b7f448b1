package generative_test

import (
	"context"
	"io"
	"testing"
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
