package loadtest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/reference"
)

// TestALostUpdateIsNeverAPlainPass: against a reference whose debits are
// not atomic (lost-update-debit), a create run at a modest rate either
// fails, or says that the wallets its debits never overlapped on were not
// put to the test, and what would: never a plain PASS. The report (text,
// report.json, JUnit) says for each account the most debits it had in
// flight at once. Before, the run passed with every wallet "ok".
func TestALostUpdateIsNeverAPlainPass(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultLostUpdateDebit)
	_, rep := run(t, p, loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 2, record.KindCoins: 1}), loadtest.WithLoad(constant(100, 2*time.Second)))
	out := text(t, rep)
	require.False(t, rep.Passed, "never a plain pass:\n%s", out)
	require.NotContains(t, out, "\nPASS", out)
	if len(rep.Findings) > 0 {
		return // the run found the lost debits
	}
	require.NotEmpty(t, rep.Incomplete, out)
	assert.Contains(t, out, "INCOMPLETE: the wallet rules were not exercised on load_customers[", out)
	assert.Contains(t, out, "more rate per account (--rate), fewer accounts", out)
	require.NotEmpty(t, rep.Exercises, out)
	for _, e := range rep.Exercises {
		assert.Equal(t, report.RuleWallet, e.Rule, out)
		assert.Positive(t, e.Requests, out)
		assert.Equal(t, e.Peak > 1, e.Exercised, out)
		assert.Contains(t, out, e.Text, "each account's overlap in the text:\n%s", out)
	}

	j, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(j), `"overlap":[{"rule":"wallet","account":"load_customers[`)
	assert.Contains(t, string(j), `"incomplete":"the wallet rules were not exercised`)
	var x strings.Builder
	require.NoError(t, rep.WriteJUnit(&x))
	assert.Contains(t, x.String(), `<skipped message="not exercised: load_customers[`, x.String())
}

// TestWavesExerciseBothRaces: on the correct reference, an idempotency
// run's waves put one id's requests and one wallet's debits in flight
// together: every rule that needs overlap is exercised, and the run
// passes.
func TestWavesExerciseBothRaces(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	_, rep := run(t, p, wave...)
	out := text(t, rep)
	require.True(t, rep.Passed, out)
	rules := map[string]bool{}
	for _, e := range rep.Exercises {
		rules[e.Rule] = true
		assert.True(t, e.Exercised, "%s %s:\n%s", e.Rule, e.Account, out)
	}
	assert.Equal(t, map[string]bool{report.RuleWallet: true, report.RuleReusedIDs: true}, rules, out)
	assert.Contains(t, out, "\nOverlap (the rules that need requests in flight together)\n", out)
}
