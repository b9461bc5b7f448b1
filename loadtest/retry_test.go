package loadtest

import (
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReconcileResolvesLostAnswers: an id no answer said "created" for is
// resolved through payment status: found, it is created once with exact
// amounts; not found, it was never created; a double debit of a retried id
// is named.
func TestReconcileResolvesLostAnswers(t *testing.T) {
	t.Parallel()
	lost := func(id string, attempt int) record.Payment {
		return record.Payment{ID: id, Seq: 1, Account: "A", Kind: record.KindBalance, Attempt: attempt, MaxBalance: 500, Outcome: record.OutcomeUncertain}
	}
	found := func(p record.Payment, bal int64) record.Payment {
		p.Lookup = &record.Lookup{Code: 200, TransactionNumber: "INV/" + p.ID, Amount: &record.Amount{Total: bal, BalanceUsed: bal}}
		return p
	}
	missing := func(p record.Payment) record.Payment {
		p.Lookup = &record.Lookup{Code: 404, Message: contract.MsgNotFound}
		return p
	}
	conflict := record.Payment{ID: "r", Seq: 1, Account: "A", Kind: record.KindBalance, Attempt: 2, Outcome: record.OutcomeDuplicate, Code: 409}
	cases := []struct {
		name      string
		ledger    []record.Payment
		after     int64 // balance after, from 1000
		invariant string
		check     func(t *testing.T, r *verdict.Reconciliation)
	}{
		{
			name:   "found: created once, exactly",
			ledger: []record.Payment{recordtest.Created("a", 0, "A", 100, 0), found(lost("r", 1), 200), conflict},
			after:  700,
			check: func(t *testing.T, r *verdict.Reconciliation) {
				assert.Equal(t, 1, r.Resolved)
				assert.Equal(t, 2, r.Created)
				assert.Equal(t, int64(300), r.Accounts[0].BalanceMax, "no leeway left for the resolved id")
			},
		},
		{
			name:      "found, and debited twice",
			ledger:    []record.Payment{recordtest.Created("a", 0, "A", 100, 0), found(lost("r", 1), 200), conflict},
			after:     500,
			invariant: verdict.InvBalance,
			check: func(t *testing.T, r *verdict.Reconciliation) {
				assert.Contains(t, r.Violations[0].Detail, "exactly the debits of the 1 ids whose answer was lost")
				assert.Contains(t, r.Violations[0].Detail, "created twice")
			},
		},
		{
			name:   "not found: never created",
			ledger: []record.Payment{recordtest.Created("a", 0, "A", 100, 0), missing(lost("r", 1))},
			after:  900,
			check: func(t *testing.T, r *verdict.Reconciliation) {
				assert.Equal(t, 1, r.NeverCreated)
				assert.Zero(t, r.UncertainIDs)
			},
		},
		{
			name:      "not found, but debited",
			ledger:    []record.Payment{recordtest.Created("a", 0, "A", 100, 0), missing(lost("r", 1))},
			after:     700,
			invariant: verdict.InvBalance,
		},
		{
			name:   "not looked up: bounded as before",
			ledger: []record.Payment{recordtest.Created("a", 0, "A", 100, 0), lost("r", 1)},
			after:  700,
			check: func(t *testing.T, r *verdict.Reconciliation) {
				assert.Equal(t, 1, r.UncertainIDs)
				assert.Equal(t, int64(600), r.Accounts[0].BalanceMax)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := reconcileA(t, tc.ledger, tc.after)
			if tc.invariant == "" {
				assert.True(t, r.Passed(), "%+v", r.Violations)
			} else {
				require.False(t, r.Passed())
				assert.Positive(t, r.Counts[tc.invariant], "%+v", r.Violations)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// reconcileA reconciles ledger with the wallet of account A, from 1,000
// rupiah to after, as verdict.Judge reconciles a run's record.
func reconcileA(tb testing.TB, ledger []record.Payment, after int64) *verdict.Reconciliation {
	tb.Helper()
	v, err := verdict.Judge(recordtest.Ledger(tb, ledger, recordtest.Snapshot("A", 0, 1000, 0, after, 0)), time.Second)
	require.NoError(tb, err)
	return v.Reconciliation
}

// TestHistoryAndRetryOptions: the history check runs only where it can
// see every operation of an account, and the retry options are bounded.
func TestHistoryAndRetryOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []Option
		err  string
	}{
		{"history with create", []Option{WithScenario(ScenarioCreate), WithHistory(true)}, ""},
		{"history with retry", []Option{WithScenario(ScenarioRetry), WithHistory(true)}, ""},
		{"history with idempotency", []Option{WithScenario(ScenarioIdempotency), WithHistory(true)}, "create, mixed and retry"},
		{"history without reconciliation", []Option{WithHistory(true), WithReconcile(false)}, "needs the reconciliation"},
		{"history on a shard", []Option{WithHistory(true), WithShard(record.Shard{Index: 0, Count: 2}), WithRunID("r1")}, "one shard"},
		{"history reads with a negative interval", []Option{WithHistory(true), WithHistoryReads(-time.Second)}, "negative"},
		{"retry without timeout", []Option{WithScenario(ScenarioRetry), WithRetry(3, 0, 0)}, "retries must be"},
		{"too many retries", []Option{WithScenario(ScenarioRetry), WithRetry(11, time.Second, 0)}, "retries must be"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New(nil, tc.opts...).cfg
			err := c.validate()
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
