package generative_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/verdict"
)

// documentFaults break a document-level rule of internal/contract
// (rules.go); the generated mode judges by the same rule as the suite, and
// fails (never only warns) where its requests can see the fault.
var documentFaults = []struct {
	fault    reference.Fault
	property string
	shows    string // a regular expression the failure matches
}{
	{reference.FaultJSONLabelledText, "listPaymentMethods: valid requests", "Content-Type"},
	{reference.FaultTotalPagesRoundedDown, "sequences", "totalPages"},
	{reference.FaultCoinsBeyondTotal, "sequences", "balance and coins pay more than the total"},
	{reference.FaultCoinsWithoutUseCoin, "sequences", "use_coin was false"},
	{reference.FaultRetryDebitsAgain, "sequences", "the payments reported leave"},
	{reference.FaultStaleProfile, "sequences", "the payments reported leave|balance is not used first"},
	{reference.FaultProvisionNewIDOnSync, "sequences", "provisioning a known phone number returned another customer"},
}

// alone are the documentFaults their property finds only when it runs
// alone (Only): in the default run, the other properties run first against
// the same server, and that property passes there.
var alone = map[reference.Fault]bool{reference.FaultCoinsBeyondTotal: true}

// TestGeneratedModeJudgesByTheDocumentLevelRules: the property named fails
// in the default run against each fault (defaultRun, the run
// TestEveryFoundFaultReproduces replays), at the rule's words; a fault of
// alone, in a run of that property alone. A sweep: it reads the whole runs
// the sweeps share, in make test's second pass, where they are made anyway.
func TestGeneratedModeJudgesByTheDocumentLevelRules(t *testing.T) {
	sweep.NoRace(t)
	for _, tc := range documentFaults {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			var failed []generative.PropertyResult
			if alone[tc.fault] {
				failed = failedAgainst(t, httpapitest.NewServer(t, tc.fault).URL, tc.property, false)
			} else {
				failed = failedIn(t, defaultRun(t, tc.fault, false), tc.property)
			}
			assert.Regexp(t, tc.shows, failed[0].Failure)
		})
	}
}

// runAgainst runs the properties named property (seed 1, the default
// budget, shrinking 2 s) against the target at url, strict or not.
func runAgainst(t *testing.T, url, property string, strict bool) generative.Result {
	t.Helper()
	res, err := generative.Run(context.Background(), generative.Options{
		Profile: profiles.Reference(url), Seed: 1, Only: property,
		Duration: time.Minute, ShrinkTime: 2 * time.Second, Strict: strict,
	})
	require.NoError(t, err)
	require.NotEmpty(t, res.Properties)
	return res
}

// failedAgainst is runAgainst's failed properties, of which there must be
// at least one.
func failedAgainst(t *testing.T, url, property string, strict bool) []generative.PropertyResult {
	t.Helper()
	var failed []generative.PropertyResult
	for _, p := range runAgainst(t, url, property, strict).Properties {
		if p.Status == verdict.StatusFailed {
			failed = append(failed, p)
		}
	}
	require.NotEmpty(t, failed, "%s went unnoticed by %q (strict %v)", url, property, strict)
	return failed
}
