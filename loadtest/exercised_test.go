package loadtest_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
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
	rec, rep := run(t, p, loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 2, record.KindCoins: 1}), loadtest.WithLoad(constant(100, 2*time.Second)))
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
	require.NoError(t, report.JUnit(rep)(&x))
	assert.Contains(t, x.String(), `<skipped message="not exercised: load_customers[`, x.String())
	var page bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&page))
	assert.Contains(t, page.String(), `<table id="overlap-table">`)
	assert.Contains(t, page.String(), `<span class="bad">not exercised</span>: more rate per account`)
	assert.Contains(t, page.String(), `<p id="verdict-text">INCOMPLETE: the wallet rules were not exercised`)
}

// TestWavesExerciseBothRaces: on the correct reference, whose payments are
// held in pairs (so that they overlap however loaded the machine), an
// idempotency run's waves put one id's requests and one wallet's debits in
// flight together: every rule that needs overlap is exercised, and the run
// passes.
func TestWavesExerciseBothRaces(t *testing.T) {
	t.Parallel()
	p := startPaired(t)
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

// TestTheDefaultRunFindsBothRaces: the default run (loadtest.DefaultSettings,
// what `make load` runs) fails against a reference whose debits are not
// atomic (lost-update-debit) and against one whose duplicate check is not
// (racy-duplicate-check): its waves put one id's requests, and one
// wallet's debits, in flight together. Before, the default mixed run sent
// every id once and a wallet's debits apart, and passed both.
func TestTheDefaultRunFindsBothRaces(t *testing.T) {
	t.Parallel()
	for _, f := range []reference.Fault{reference.FaultLostUpdateDebit, reference.FaultRacyDuplicateCheck} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			_, rep := run(t, startReference(t, f), loadtest.WithSettings(loadtest.DefaultSettings()))
			out := text(t, rep)
			require.False(t, rep.Passed, out)
			require.Empty(t, rep.Incomplete, out)
			require.NotEmpty(t, rep.Findings, out)
			assert.Contains(t, out, "\nFAIL", out)
		})
	}
}

// TestMixedWavesAreCountedAsTheirRequests: in the mixed scenario, a wave
// hit (the wave operation) sends wave-size requests of one partner_trx_id
// at once, sharing the hit's sequence number; the schedule plans requests,
// as the rate counts them, so a complete run sent what it planned; the
// waves are reconciled as the idempotency scenario's, and the reused ids
// were exercised.
func TestMixedWavesAreCountedAsTheirRequests(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithOps("create=1,wave=1"),
		loadtest.WithWaveSize(4), loadtest.WithLoad(constant(100, time.Second)))
	out := text(t, rep)
	requireNoFailure(t, rep)
	assert.Equal(t, rec.Generator.Planned, rec.Generator.Sent, out)
	assert.InDelta(t, 100, rec.Generator.Planned, 40, "about the rate, in requests: %s", out)
	perID := map[string][]record.Payment{}
	for _, p := range recordtest.Payments(t, rec) {
		perID[p.ID] = append(perID[p.ID], p)
	}
	waves := 0
	for id, ps := range perID {
		if ps[0].Wave == 0 {
			assert.Len(t, ps, 1, id)
			continue
		}
		waves++
		require.Len(t, ps, 4, id)
		for _, p := range ps {
			assert.Equal(t, ps[0].Seq, p.Seq, "a wave's requests share their hit's sequence number")
		}
	}
	require.Positive(t, waves, out)
	require.NotNil(t, rep.Reconciliation, out)
	assert.Equal(t, waves, rep.Reconciliation.Waves, out)
	assert.Equal(t, 4, rec.Meta.WaveSize, "the meta keeps the wave size of a mixed run with waves")
	i := slices.IndexFunc(rep.Exercises, func(e report.Exercise) bool { return e.Rule == report.RuleReusedIDs })
	require.GreaterOrEqual(t, i, 0, out)
	assert.Equal(t, waves, rep.Exercises[i].Requests, out)
}

// TestMixedWavesNeedTheirWorkers: a mixed run whose operation mix sends
// waves is refused a worker cap below the wave size, and told the way
// out; without waves in its mix it is not.
func TestMixedWavesNeedTheirWorkers(t *testing.T) {
	t.Parallel()
	s := loadtest.DefaultSettings()
	s.MaxWorkers = 16
	err := loadtest.Check(s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the operation mix sends waves (wave in --ops): wave size must be between 2 and max workers (16): lower --wave-size, raise --max-workers, or give wave no weight")
	s.OpMix = "create=1,status=1"
	assert.NoError(t, loadtest.Check(s))
}
