package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest/nemesis"
)

// TestVerdictClasses: each class of the verdict from a handcrafted
// history: the ledger of a run (each id's answers and what payment status
// said after it) and the wallets before and after.
// classT0 is when the runs of TestVerdictClasses began.
var classT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// sentAt is p sent d after classT0.
func sentAt(p record.Payment, d time.Duration) record.Payment { p.At = classT0.Add(d); return p }

// found is p, which payment status found with amount a after the run.
func found(p record.Payment, a record.Amount) record.Payment {
	p.Lookup = &record.Lookup{Code: 200, Amount: &a, TransactionNumber: p.TransactionNumber}
	return p
}

// refused is the payment id of account A, answered with a refusal.
func refused(id string, seq uint64, outcome string) record.Payment {
	return record.Payment{ID: id, Seq: seq, Account: "A", Outcome: outcome, Code: 422, Message: "Saldo tidak mencukupi."}
}

// unanswered is the payment id of account A, whose answer was lost.
func unanswered(id string, seq uint64) record.Payment {
	return record.Payment{ID: id, Seq: seq, Account: "A", Outcome: record.OutcomeUncertain, MaxBalance: 100}
}

// classCase is a run's ledger and the class of the verdict's first line.
type classCase struct {
	name    string
	ledger  []record.Payment
	after   int64 // balance after; 1000 before
	class   string
	line    string
	finding string // the headline of the run's one finding
	resolve string
}

func TestVerdictClasses(t *testing.T) {
	t.Parallel()
	cases := []classCase{
		{
			name:   "acknowledged, then lost",
			ledger: []record.Payment{missing(sentAt(recordtest.Created("lost", 1, "A", 100, 0), time.Second))},
			after:  900, class: verdict.ClassLost,
			line:    "1 lost writes: acknowledged as created, then not found by payment status; 1 before or during fault 1 (kill-9 at 2 s) (e.g. lost)",
			finding: "1 created payments were lost: acknowledged as created, then payment status did not find them; 1 before or during fault 1 (kill-9 at 2 s) (e.g. lost)",
		},
		{
			name:   "refused, then found",
			ledger: []record.Payment{found(sentAt(refused("zombie", 1, record.OutcomeRefused), 3*time.Second), record.Amount{BalanceUsed: 100})},
			after:  900, class: verdict.ClassResurrected,
			line:    "1 resurrected payments: refused or never delivered, then found created; 1 after the last fault (e.g. zombie)",
			finding: "1 payments refused or never delivered were created all the same: payment status found them; 1 after the last fault (e.g. zombie)",
		},
		{
			name:   "never delivered, then found",
			ledger: []record.Payment{found(sentAt(record.Payment{ID: "ghost", Seq: 1, Account: "A", Outcome: record.OutcomeNotDelivered}, 2050*time.Millisecond), record.Amount{BalanceUsed: 100})},
			after:  900, class: verdict.ClassResurrected,
			line:    "1 resurrected payments: refused or never delivered, then found created; 1 before or during fault 1 (kill-9 at 2 s) (e.g. ghost)",
			finding: "1 payments refused or never delivered were created all the same: payment status found them; 1 before or during fault 1 (kill-9 at 2 s) (e.g. ghost)",
		},
		{
			name:   "debited twice",
			ledger: []record.Payment{recordtest.Created("twice", 1, "A", 100, 0), recordtest.Created("twice", 2, "A", 100, 0)},
			after:  800, class: verdict.ClassDuplicate,
			line:    "1 ids created more than once: 1 duplicate debits (e.g. twice)",
			finding: "a reused partner_trx_id was accepted: 1 ids were created more than once, 1 payments too many (e.g. twice)",
		},
		{
			name:   "wallet mismatch",
			ledger: []record.Payment{recordtest.Created("ok", 1, "A", 100, 0)},
			after:  1000, class: verdict.ClassWalletMismatch,
			line:    "1 wallet mismatches: accounts whose balance or coins do not reconcile with the ledger (e.g. A)",
			finding: "1 wallets fell by less than the created payments' answers say they took: debits were lost (concurrent payments writing over each other's debit?) (e.g. A)",
		},
		{
			name:   "uncertain, resolved created",
			ledger: []record.Payment{found(unanswered("u", 1), record.Amount{BalanceUsed: 100})},
			after:  900, class: verdict.ClassUncertain, resolve: verdict.ResolvedCreated,
		},
		{
			name:   "uncertain, never created",
			ledger: []record.Payment{missing(unanswered("u", 1))},
			after:  1000, class: verdict.ClassUncertain, resolve: verdict.ResolvedNeverCreated,
		},
		{
			name:   "uncertain, unresolved",
			ledger: []record.Payment{unanswered("u", 1)},
			after:  950, class: verdict.ClassUncertain, resolve: verdict.Unresolved,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkClass(t, tc)
		})
	}
}

// checkClass checks the verdict on tc's ledger: its first line, the
// report's failure, and violations.jsonl.
func checkClass(t *testing.T, tc classCase) {
	t.Helper()
	faults := []nemesis.Fault{{Step: 1, Name: "kill-9", Start: classT0.Add(2 * time.Second), End: classT0.Add(2100 * time.Millisecond)}}
	r := reconcile(t, tc.ledger, recordtest.Snapshot("A", 0, 1000, 0, tc.after, 0))
	var classes []string
	for _, e := range r.Entries {
		classes = append(classes, e.Class)
	}
	require.Contains(t, classes, tc.class, "%+v", r.Entries)
	uncertainReqs := 0
	for _, p := range tc.ledger {
		if p.Outcome == record.OutcomeUncertain {
			uncertainReqs++
		}
	}
	rep := &Report{Requests: len(tc.ledger), Expected: len(tc.ledger), Uncertain: uncertainReqs, Reconciliation: r, Began: classT0}
	rep.summarize(faults, classT0)
	// The ledger's one or two requests may all be uncertain: their share
	// (the default threshold's) is not what a case checks.
	share, err := ParseThreshold("uncertain_pct<=100")
	require.NoError(t, err)
	rep.finish([]Threshold{share})
	require.NotEmpty(t, rep.Verdict)
	assert.Equal(t, tc.class, rep.Verdict[0].Class, "%+v", rep.Verdict)
	if tc.line != "" {
		assert.Equal(t, tc.line, rep.Verdict[0].Text)
		assert.False(t, rep.Passed)
		require.Len(t, rep.Findings, 1, "one defect, one finding")
		assert.Equal(t, tc.finding, rep.Findings[0].Headline)
		assert.Equal(t, []string{tc.finding}, rep.Failures)
	}
	if tc.resolve != "" {
		assert.Equal(t, tc.resolve, r.Entries[0].Resolution)
		assert.Contains(t, rep.Verdict[0].Text, fmt.Sprintf("1 uncertain requests (no answer within the timeout; 1 ids without a created answer: payment status found %d created, %d never created, %d unresolved)",
			btoi(tc.resolve == verdict.ResolvedCreated), btoi(tc.resolve == verdict.ResolvedNeverCreated), btoi(tc.resolve == verdict.Unresolved)))
		assert.True(t, rep.Passed, "an uncertain id within the bounds fails no invariant: %v", rep.Failures)
	}
	var buf bytes.Buffer
	require.NoError(t, Violations(r)(&buf))
	var first verdict.Entry
	require.NoError(t, json.NewDecoder(&buf).Decode(&first))
	assert.Equal(t, tc.class, first.Class)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestVerdictLeadsInOrder: a run with several findings leads with lost
// writes, then duplicate debits, then wallet mismatches, then contract
// violations, whatever their counts; the uncertain requests fail by their
// threshold, not as a finding.
func TestVerdictLeadsInOrder(t *testing.T) {
	t.Parallel()
	ledger := []record.Payment{
		missing(recordtest.Created("l1", 1, "A", 100, 0)), missing(recordtest.Created("l2", 2, "A", 100, 0)),
		recordtest.Created("d", 3, "A", 100, 0), recordtest.Created("d", 4, "A", 100, 0), recordtest.Created("d", 5, "A", 100, 0),
		{ID: "u", Seq: 6, Account: "A", Outcome: record.OutcomeUncertain},
	}
	r := reconcile(t, ledger, recordtest.Snapshot("A", 0, 10_000, 0, 1, 0))
	rep := &Report{Requests: 6, Uncertain: 1, Reconciliation: r, Contract: ContractSummary{Violations: 2, ByRule: map[string]int{"create: bad": 2}},
		Errors: []record.ErrorEntry{{Op: record.OpCreate, Error: "contract: create: bad", Example: "partner_trx_id x"}}}
	rep.summarize(nil, time.Time{})
	var order []string
	for _, l := range rep.Verdict {
		order = append(order, l.Class)
	}
	assert.Equal(t, []string{verdict.ClassLost, verdict.ClassDuplicate, verdict.ClassWalletMismatch, verdict.ClassUncertain, verdict.ClassContract}, order)
	order = nil
	for _, f := range rep.Findings {
		order = append(order, f.Class)
	}
	assert.Equal(t, []string{verdict.ClassLost, verdict.ClassDuplicate, verdict.ClassWalletMismatch, verdict.ClassContract}, order)
	assert.Equal(t, "2 created payments were lost: acknowledged as created, then payment status did not find them (e.g. l1, l2)", rep.Findings[0].Headline)
	assert.Equal(t, "a reused partner_trx_id was accepted: 1 ids were created more than once, 2 payments too many (e.g. d)", rep.Findings[1].Headline)
	assert.Equal(t, "bad: 2 answers (create 2)", rep.Findings[3].Headline)
	rep.finish(nil)
	var b bytes.Buffer
	require.NoError(t, Text(rep)(&b))
	assert.Regexp(t, "^Load test .*\nFAIL: 4 findings\n  1. 2 created payments were lost: .*\n(     .*\n)+  2. a reused partner_trx_id was accepted: .*\n(     .*\n)+"+
		"  3. 1 wallets fell by more than .*\n(     .*\n)+  4. bad: 2 answers .*\n  every id: violations.jsonl\n", b.String())
}

func missing(p record.Payment) record.Payment {
	p.Lookup = &record.Lookup{Code: 404, Message: contract.MsgNotFound}
	return p
}

// TestVerdictSaysARunMeasuredRefusals: a pass whose balance and coin
// payments were mostly refused because the wallets ran dry says so in its
// verdict line, not only further down.
func TestVerdictSaysARunMeasuredRefusals(t *testing.T) {
	t.Parallel()
	rep := &Report{Passed: true, Exhaustion: &verdict.Exhaustion{Refused: 69, Answered: 100, RefusedPct: 69}}
	assert.Equal(t, "PASS, but 69% of balance and coin payments were refused (422): the wallets ran dry, so this run measured refusals, not payments", rep.headline())
	rep.Exhaustion.RefusedPct = 10
	assert.Equal(t, "PASS", rep.headline())
	rep.Passed = false
	assert.Equal(t, "FAIL", rep.headline())
	rep.Findings = []Finding{{Headline: "a"}}
	assert.Equal(t, "FAIL: 1 finding", rep.headline())
}
