package loadtest_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/reference"
)

// faultFinding is a fault of the reference the load tester finds, the
// short run that finds it, and the one finding it must read as.
type faultFinding struct {
	fault    reference.Fault
	opts     []loadtest.Option
	accounts int // load customers to pay with; 0: the profile's
	class    string
	kind     string // "" when any
	says     string // in the finding's headline
}

// wave is a short idempotency run of waves of eight (eight waves a
// second), the traffic that reuses partner_trx_ids.
var wave = []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8), loadtest.WithLoad(constant(64, time.Second))}

// faultFindings are the reference's faults the load tester finds in its
// default checks (the history check aside, whose verdict is a warning:
// stale-profile), each with the run that finds it. Those it cannot see:
// the mixed-wallet faults (it makes no payment that leaves a remainder to
// a gateway while taking balance or coins), the faults of requests it
// never sends (bad input, other partners, provisioning), base-price-charged
// (it knows no partner's price list but the catalog it reads), and
// total-pages-rounded-down and errors-as-text, which stop it at its
// set-up (it cannot read the catalog: a run that could not be carried out).
var faultFindings = []faultFinding{
	{fault: reference.FaultDuplicateTrxAccepted, opts: wave, class: verdict.ClassDuplicate, says: "a reused partner_trx_id was accepted"},
	{fault: reference.FaultRacyDuplicateCheck, opts: []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(32),
		loadtest.WithLoad(constant(640, time.Second))}, class: verdict.ClassDuplicate, says: "a reused partner_trx_id was accepted"},
	// Its unlocked debit lets a wave's requests past the id's check too.
	{fault: reference.FaultLostUpdateDebit, opts: wave, class: verdict.ClassDuplicate, says: "a reused partner_trx_id was accepted"},
	{fault: reference.FaultLostUpdateDebit, opts: []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}), loadtest.WithLoad(constant(0, time.Second)),
		loadtest.WithMaxWorkers(32), loadtest.WithMaxConnections(32)}, accounts: 1,
		class: verdict.ClassWalletMismatch, kind: verdict.KindUnder, says: "debits were lost"},
	{fault: reference.FaultRetryDebitsAgain, opts: wave, class: verdict.ClassWalletMismatch, kind: verdict.KindOverReuse,
		says: "a refused reuse of a partner_trx_id took from the wallet"},
	{fault: reference.FaultThrottledButProcessed, opts: []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}), loadtest.WithLoad(constant(40, 500*time.Millisecond))},
		class: verdict.ClassWalletMismatch, kind: verdict.KindOverThrottled, says: "a throttled payment was processed"},
	{fault: reference.FaultThrottledButProcessed, opts: []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioRetry),
		loadtest.WithRetry(1, 500*time.Millisecond, 20*time.Millisecond), loadtest.WithLoad(constant(40, 500*time.Millisecond))},
		class: verdict.ClassResurrected, kind: verdict.KindThrottled, says: "a throttled payment was processed"},
	{fault: reference.FaultCoinValueNotHalved, opts: createOf(record.KindCoins), class: verdict.ClassContract, says: "coin_used is not twice coin_value_used"},
	{fault: reference.FaultCoinsBeyondTotal, opts: createOf(record.KindCoins), class: verdict.ClassContract, says: "balance and coins pay more than the total"},
	{fault: reference.FaultGatewayRemainderHidden, opts: createOf(record.KindGateway), class: verdict.ClassContract, says: "amount parts do not add up to total"},
	{fault: reference.FaultMessageTypo, opts: createOf(record.KindBalance), class: verdict.ClassContract, says: "the success message"},
	{fault: reference.FaultTrxNumberWithoutSlash, opts: createOf(record.KindBalance), class: verdict.ClassContract, says: "the transaction is not named as the document says"},
	{fault: reference.FaultProductWithoutLogo, opts: []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioMixed),
		loadtest.WithOps("create=1,sync=1"), loadtest.WithLoad(constant(60, 500*time.Millisecond))},
		class: verdict.ClassContract, says: "operator.logo"},
}

// createOf is a short create run paying with kind only.
func createOf(kind string) []loadtest.Option {
	return []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithPaymentMix(loadtest.Weights{kind: 1}),
		loadtest.WithLoad(constant(60, 500*time.Millisecond))}
}

// TestEachFaultReadsAsOneFinding: against each reference fault the load
// tester finds, a short run fails with exactly one finding (and no other
// failure): the class of what the fault breaks, the sentence of the
// document, one request with its answer; its consequences (a wave broken,
// a wallet off, a look-up naming another transaction) folded under it and
// told nowhere else. The live line counted, as the answers came, what the
// verdict counts: the contract violations and the ids created again.
func TestEachFaultReadsAsOneFinding(t *testing.T) {
	t.Parallel()
	for _, tc := range faultFindings {
		name := string(tc.fault) + "/" + scenarioOf(t, tc.opts)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := startReference(t, tc.fault)
			if tc.accounts > 0 {
				p.LoadCustomers = p.LoadCustomers[:tc.accounts]
			}
			var mu sync.Mutex
			var last loadtest.Progress
			opts := append(append([]loadtest.Option{}, tc.opts...), loadtest.WithProgress(time.Hour, func(pr loadtest.Progress) {
				if pr.Phase == "" {
					mu.Lock()
					last = pr
					mu.Unlock()
				}
			}))
			_, rep := run(t, p, opts...)
			out := text(t, rep)
			require.False(t, rep.Passed, out)
			require.Len(t, rep.Findings, 1, "one defect, one finding:\n%s", out)
			f := rep.Findings[0]
			assert.Equal(t, tc.class, f.Class, out)
			if tc.kind != "" {
				assert.Equal(t, tc.kind, f.Kind, out)
			}
			assert.Contains(t, f.Headline, tc.says, out)
			assert.Equal(t, []string{f.Headline}, rep.Failures, "nothing else fails the run:\n%s", out)
			assert.Contains(t, f.Sentence, "§", "the sentence of the document:\n%s", out)
			require.NotNil(t, f.Exhibit, "a request and its answer:\n%s", out)
			assert.NotEmpty(t, f.Exhibit.Method, out)
			assert.Contains(t, f.Exhibit.URL, p.BaseURL, out)
			assert.Positive(t, f.Exhibit.Status, out)
			assert.Contains(t, out, "\nFAIL: 1 finding\n  1. "+f.Headline+"\n     the document: ", out)

			mu.Lock()
			defer mu.Unlock()
			require.True(t, last.Final, "the final progress line")
			assert.Equal(t, int64(rep.Contract.Violations), last.Violations, "the live line's contract violations are the verdict's")
			if r := rep.Reconciliation; r != nil && last.FindsCreatedAgain {
				assert.Equal(t, int64(r.Duplicates), last.CreatedAgain, "the live line's ids created again are the verdict's duplicate debits")
			}
		})
	}
}

// scenarioOf is the scenario opts set, for a subtest's name.
func scenarioOf(t *testing.T, opts []loadtest.Option) string {
	t.Helper()
	for _, name := range loadtest.Scenarios() {
		if loadtest.SetsScenario(opts, name) {
			return name
		}
	}
	return "default"
}

// TestDuplicateFoldsItsConsequences: an id created twice breaks its wave,
// takes its wallet past what the first answers say, and leaves its
// look-up naming another transaction: one finding, those three folded
// under it, each counted there and nowhere else; the live line counted
// every payment created again as it came, and the summary no longer says
// every answer was as expected.
func TestDuplicateFoldsItsConsequences(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultDuplicateTrxAccepted)
	var finals []loadtest.Progress
	_, rep := run(t, p, append(append([]loadtest.Option{}, wave...), loadtest.WithProgress(time.Hour, func(pr loadtest.Progress) {
		if pr.Final {
			finals = append(finals, pr)
		}
	}))...)
	out := text(t, rep)
	require.Len(t, rep.Findings, 1, out)
	f := rep.Findings[0]
	var folded []string
	for _, c := range f.Consequences {
		folded = append(folded, c.Class)
	}
	assert.ElementsMatch(t, []string{verdict.ClassIdempotency, verdict.ClassWalletMismatch, verdict.ClassNotReconciled}, folded, out)
	assert.Contains(t, out, "so 8 idempotency waves broke: more than one payment created")
	assert.Contains(t, out, "wallets fell by more than the first payment of each id took: by what the payments created again took, exactly")
	assert.Contains(t, out, "ids could not be reconciled: payment status names another of the transactions created for the id")
	assert.Equal(t, record.ErrCreatedAgain, rep.Errors[0].Error)
	assert.Equal(t, 200, f.Exhibit.Status)
	assert.Contains(t, f.Exhibit.Request, `"partner_trx_id"`, "the request's body")
	assert.Contains(t, f.Exhibit.Answer, "Pembayaran berhasil diproses.", "the answer that created the id again")
	assert.Less(t, rep.SuccessPct, 50.0, "the payments created again are not as expected")
	require.Len(t, finals, 1)
	assert.Equal(t, int64(rep.Reconciliation.Duplicates), finals[0].CreatedAgain)
	assert.Equal(t, 56, rep.Reconciliation.Duplicates, "eight waves of eight: seven too many each")
	assert.False(t, strings.Contains(out, "idempotency waves broken: "), "no class line of its own:\n%s", out)
}
