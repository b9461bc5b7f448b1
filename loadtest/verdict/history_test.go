package verdict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Builders of history operations; times are small integers (nanoseconds).

func hRead(client int, acct string, call, ret, bal, coins int64) record.HistoryOp {
	return record.HistoryOp{Client: client, Phase: record.PhaseAttack, Op: record.OpProfile, Account: acct, Invoke: call, Return: ret,
		Code: 200, Balance: &bal, Coins: &coins}
}

func hPay(client int, acct, id string, call, ret int64, outcome string, bal, coins int64) record.HistoryOp {
	op := record.HistoryOp{Client: client, Phase: record.PhaseAttack, Op: record.OpCreate, Account: acct, ID: id, Invoke: call, Return: ret, Outcome: outcome}
	switch outcome {
	case record.OutcomeCreated:
		op.Code = 200
		op.Amount = &record.Amount{Total: bal + coins/2, BalanceUsed: bal, CoinUsed: coins, CoinValueUsed: coins / 2}
	case record.OutcomeDuplicate:
		op.Code = 409
	case record.OutcomeRefused:
		op.Code = 422
	case record.OutcomeUncertain:
		op.Return, op.Error = 0, "timeout"
	}
	return op
}

func hStatus(acct, id string, call, ret int64, code int, bal int64) record.HistoryOp {
	op := record.HistoryOp{Client: 99, Phase: record.PhaseResolve, Op: record.OpStatus, Account: acct, ID: id, Invoke: call, Return: ret, Code: code}
	if code == 200 {
		op.Amount = &record.Amount{Total: bal, BalanceUsed: bal}
	}
	return op
}

// historyCase is a history and what the check must conclude from it.
type historyCase struct {
	name    string
	ops     []record.HistoryOp
	verdict string
	// unexplained is a fragment of the first unexplained operation.
	unexplained string
	debits      int
}

// checkHistoryCases checks each case's history.
func checkHistoryCases(t *testing.T, cases []historyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hc := CheckHistory(tc.ops, DefaultHistoryTimeout)
			require.Equal(t, tc.verdict, hc.Verdict, hc.String())
			assert.Equal(t, tc.verdict == HistoryOK, hc.Passed())
			if tc.unexplained != "" {
				assert.Contains(t, hc.FirstUnexplained, tc.unexplained)
				assert.Equal(t, "A", hc.Account)
				var b strings.Builder
				require.NoError(t, hc.WriteVisualization(&b))
				assert.Contains(t, b.String(), "<html")
			}
			if tc.debits > 0 {
				assert.Equal(t, tc.debits, hc.Debits)
			}
		})
	}
}

// TestCheckHistoryReadsAndDebits: answered payments and the reads around
// them, on one account or several.
func TestCheckHistoryReadsAndDebits(t *testing.T) {
	t.Parallel()
	checkHistoryCases(t, []historyCase{
		{
			name:    "serial payments and reads",
			ops:     []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 50), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0), hRead(0, "A", 30, 31, 900, 50)},
			verdict: HistoryOK, debits: 1,
		},
		{
			name: "lost update: two debits, one seen",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0),
				hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0), hPay(2, "A", "b", 11, 21, record.OutcomeCreated, 100, 0),
				hRead(0, "A", 30, 31, 900, 0)},
			verdict: HistoryIllegal, unexplained: "balance 900, coins 0",
		},
		{
			name: "a read during a debit may see it or not",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0),
				hRead(0, "A", 12, 18, 1000, 0), hRead(3, "A", 13, 19, 900, 0), hRead(0, "A", 30, 31, 900, 0)},
			verdict: HistoryOK,
		},
		{
			name: "stale read after the debit returned",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0),
				hRead(0, "A", 30, 31, 1000, 0)},
			verdict: HistoryIllegal, unexplained: "invoked at +0.000s, answered at +0.000s: balance 1000",
		},
		{
			name: "torn read: balance debited, coins not",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 100), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 60, 80),
				hRead(0, "A", 15, 31, 940, 100)},
			verdict: HistoryIllegal, unexplained: "balance 940, coins 100",
		},
		{
			name: "reads going back in time",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 40, record.OutcomeCreated, 100, 0),
				hRead(2, "A", 12, 13, 900, 0), hRead(3, "A", 14, 15, 1000, 0)},
			verdict: HistoryIllegal, unexplained: "balance 1000",
		},
		{
			name: "accounts are independent",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hRead(0, "B", 1, 2, 500, 0),
				hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0), hRead(0, "B", 30, 31, 500, 0), hRead(0, "A", 30, 31, 900, 0)},
			verdict: HistoryOK,
		},
		{
			name: "refused payments debit nothing",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 20, record.OutcomeRefused, 0, 0),
				hRead(0, "A", 30, 31, 1000, 0)},
			verdict: HistoryOK, debits: 0,
		},
	})
}

// TestCheckHistoryLostAnswers: payments whose answer was lost, resolved
// through payment status or a retry's 409, or never resolved.
func TestCheckHistoryLostAnswers(t *testing.T) {
	t.Parallel()
	checkHistoryCases(t, []historyCase{
		{
			name: "lost answer resolved through status: the effect lies before the look-up",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 0, record.OutcomeUncertain, 0, 0),
				hRead(0, "A", 50, 51, 1000, 0), hRead(0, "A", 60, 61, 900, 0), hStatus("A", "a", 100, 101, 200, 100),
				hRead(0, "A", 110, 111, 900, 0)},
			verdict: HistoryOK, debits: 1,
		},
		{
			name: "lost answer never created: a debit is unexplained",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 0, record.OutcomeUncertain, 0, 0),
				hStatus("A", "a", 100, 101, 404, 0), hRead(0, "A", 110, 111, 900, 0)},
			verdict: HistoryIllegal, unexplained: "balance 900",
		},
		{
			name: "retry: lost answer, 409 on the retry, one debit",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 0, record.OutcomeUncertain, 0, 0),
				hPay(1, "A", "a", 30, 31, record.OutcomeDuplicate, 0, 0), hRead(0, "A", 40, 41, 900, 0),
				hStatus("A", "a", 100, 101, 200, 100), hRead(0, "A", 110, 111, 900, 0)},
			verdict: HistoryOK, debits: 1,
		},
		{
			name: "retry: debited on the lost request and again on the retry",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 0, record.OutcomeUncertain, 0, 0),
				hPay(1, "A", "a", 30, 31, record.OutcomeDuplicate, 0, 0), hRead(0, "A", 40, 41, 800, 0),
				hStatus("A", "a", 100, 101, 200, 100)},
			verdict: HistoryIllegal, unexplained: "balance 800",
		},
		{
			name: "an id created twice is two debits",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0),
				hPay(2, "A", "a", 30, 40, record.OutcomeCreated, 100, 0), hRead(0, "A", 50, 51, 800, 0)},
			verdict: HistoryOK, debits: 2,
		},
		{
			name:    "without a first read the start is unknown",
			ops:     []record.HistoryOp{hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0), hRead(0, "A", 30, 31, 123, 0), hRead(0, "A", 40, 41, 123, 0)},
			verdict: HistoryOK,
		},
		{
			name: "unresolved lost answer makes the wallet unknown until a lone read",
			ops: []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0), hPay(1, "A", "a", 10, 0, record.OutcomeUncertain, 0, 0),
				hRead(0, "A", 200, 201, 700, 0), hPay(1, "A", "b", 210, 220, record.OutcomeCreated, 100, 0), hRead(0, "A", 230, 231, 500, 0)},
			verdict: HistoryIllegal, unexplained: "balance 500",
		},
	})
}

func TestCheckHistorySegments(t *testing.T) {
	t.Parallel()
	ops := []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0),
		hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0), hPay(2, "A", "b", 15, 25, record.OutcomeCreated, 100, 0), // one segment
		hRead(0, "A", 30, 31, 800, 0),
		hPay(1, "A", "c", 40, 50, record.OutcomeCreated, 100, 0), hRead(0, "A", 60, 61, 700, 0)}
	hc := CheckHistory(ops, DefaultHistoryTimeout)
	require.True(t, hc.Passed(), hc.String())
	assert.Equal(t, 5, hc.Segments)
	assert.Equal(t, 6, hc.Operations)
	assert.Equal(t, 3, hc.Debits)
	assert.Equal(t, 3, hc.Reads)
	assert.Contains(t, hc.String(), "linearizable")
}

// TestCheckHistoryUndecided: a check with no time left decides nothing and
// does not pass.
func TestCheckHistoryUndecided(t *testing.T) {
	t.Parallel()
	hc := CheckHistory([]record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0)}, -1)
	assert.Equal(t, HistoryUndecided, hc.Verdict)
	assert.False(t, hc.Passed())
	assert.Equal(t, 1, hc.Undecided)
}

func TestHistoryRoundTrip(t *testing.T) {
	t.Parallel()
	ops := []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 50), hPay(1, "A", "a", 10, 20, record.OutcomeCreated, 100, 0),
		hPay(1, "A", "b", 10, 0, record.OutcomeUncertain, 0, 0), hStatus("A", "b", 30, 31, 404, 0)}
	var b strings.Builder
	require.NoError(t, writeLines(&b, ops))
	assert.Equal(t, 4, strings.Count(b.String(), "\n"))
	back, err := readHistory(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, ops, back)
	_, err = readHistory(strings.NewReader(`{"client":"x"}`))
	assert.Error(t, err)
}

// TestCheckHistoryCrowdedReads: a read concurrent with more debits than
// porcupine can search through is checked against bounds only: inside
// them it passes (a limit of the check), outside it fails.
func TestCheckHistoryCrowdedReads(t *testing.T) {
	t.Parallel()
	crowd := func(readBal int64) []record.HistoryOp {
		ops := []record.HistoryOp{hRead(0, "A", 1, 2, 1000, 0)}
		for i := range maxReadOverlap + 2 {
			ops = append(ops, hPay(1+i, "A", fmt.Sprint("d", i), 10, 50, record.OutcomeCreated, 30, 0))
		}
		return append(ops, hRead(0, "A", 20, 30, readBal, 0), hRead(0, "A", 60, 61, 1000-30*(maxReadOverlap+2), 0))
	}
	hc := CheckHistory(crowd(1000-7), DefaultHistoryTimeout) // no subset of 30s gives 7, but within the bounds
	require.True(t, hc.Passed(), hc.String())
	assert.Equal(t, 1, hc.BoundsOnly)
	assert.Contains(t, hc.String(), "1 concurrent with over 10 debits checked by bounds only")

	hc = CheckHistory(crowd(1000+1), DefaultHistoryTimeout) // above the start: out of bounds
	require.Equal(t, HistoryIllegal, hc.Verdict, hc.String())
	assert.Contains(t, hc.FirstUnexplained, "balance 1001")
}
