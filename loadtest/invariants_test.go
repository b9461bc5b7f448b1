package loadtest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func created(id string, seq uint64, acct string, bal, coins int64) Payment {
	a := &Amount{Total: bal + coins/2, BalanceUsed: bal, CoinUsed: coins, CoinValueUsed: coins / 2}
	return Payment{ID: id, Seq: seq, Account: acct, Kind: KindBalance, Outcome: OutcomeCreated, Code: 200,
		TransactionNumber: "INV/" + id, Amount: a,
		Lookup: &Lookup{Code: 200, TransactionNumber: "INV/" + id, Amount: a}}
}

func snap(acct string, shard int, bal0, coins0, bal1, coins1 int64) AccountSnapshot {
	return AccountSnapshot{Account: acct, Shard: shard,
		Before: &Wallet{Balance: bal0, Coins: coins0, At: t0.Add(time.Duration(shard) * time.Second)},
		After:  &Wallet{Balance: bal1, Coins: coins1, At: t0.Add(time.Minute + time.Duration(shard)*time.Second)}}
}

// wave marks payments ps as the requests of one idempotency wave of n.
func wave(n int, ps ...Payment) []Payment {
	for i := range ps {
		ps[i].Wave = n
	}
	return ps
}

// reconcileCase is a ledger and its wallets, and the invariant their
// reconciliation breaks.
type reconcileCase struct {
	name      string
	ledger    []Payment
	snaps     []AccountSnapshot
	final     bool
	invariant string // "" when the ledger reconciles
	check     func(t *testing.T, r *Reconciliation)
}

func checkReconcile(t *testing.T, cases []reconcileCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Reconcile(tc.ledger, tc.snaps, tc.final)
			if tc.invariant == "" {
				assert.True(t, r.Passed(), "%+v", r.Violations)
			} else {
				require.False(t, r.Passed())
				assert.Greater(t, r.Counts[tc.invariant], 0, "%+v", r.Violations)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// uncertainPayment is a balance payment of account A whose answer was lost.
func uncertainPayment(id string, seq uint64, maxBal int64) Payment {
	return Payment{ID: id, Seq: seq, Account: "A", Kind: KindBalance, MaxBalance: maxBal, Outcome: OutcomeUncertain}
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	checkReconcile(t, []reconcileCase{
		{
			name:   "exact",
			ledger: []Payment{created("a", 1, "A", 100, 0), created("b", 2, "A", 50, 30)},
			snaps:  []AccountSnapshot{snap("A", 0, 1000, 1000, 850, 970)},
			final:  true,
		},
		{
			name:      "lost update: balance fell by less than the debits",
			ledger:    []Payment{created("a", 1, "A", 100, 0), created("b", 2, "A", 100, 0)},
			snaps:     []AccountSnapshot{snap("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name:      "coins off",
			ledger:    []Payment{created("a", 1, "A", 0, 40)},
			snaps:     []AccountSnapshot{snap("A", 0, 0, 100, 0, 20)},
			final:     true,
			invariant: InvCoins,
		},
		{
			name:   "refused requests debit nothing",
			ledger: []Payment{created("a", 1, "A", 100, 0), {ID: "b", Seq: 2, Account: "A", Outcome: OutcomeRefused, Code: 422, MaxBalance: 500}},
			snaps:  []AccountSnapshot{snap("A", 0, 1000, 0, 900, 0)},
			final:  true,
		},
		{
			name:   "timed out request that did not debit is within the bound",
			ledger: []Payment{created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:  []AccountSnapshot{snap("A", 0, 1000, 0, 900, 0)},
			final:  true,
			check: func(t *testing.T, r *Reconciliation) {
				assert.Equal(t, 1, r.Uncertain)
				assert.Equal(t, 1, r.UncertainIDs)
				assert.Equal(t, int64(100), r.Accounts[0].BalanceMin)
				assert.Equal(t, int64(400), r.Accounts[0].BalanceMax)
			},
		},
		{
			name:   "timed out request that did debit is within the bound",
			ledger: []Payment{created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:  []AccountSnapshot{snap("A", 0, 1000, 0, 650, 0)},
			final:  true,
		},
		{
			name:      "debit above what the timed-out requests could explain",
			ledger:    []Payment{created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:     []AccountSnapshot{snap("A", 0, 1000, 0, 599, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name:      "an id created twice",
			ledger:    []Payment{created("a", 1, "A", 100, 0), created("a", 2, "A", 100, 0)},
			snaps:     []AccountSnapshot{snap("A", 0, 1000, 0, 800, 0)},
			final:     true,
			invariant: InvUniqueID,
			check: func(t *testing.T, r *Reconciliation) {
				assert.Equal(t, 1, r.Duplicates)
				// Two debits for one id: the balance check flags it too.
				assert.Equal(t, 1, r.Counts[InvBalance])
			},
		},
		{
			name: "wave: one created, N-1 409",
			ledger: wave(3, created("w", 0, "A", 10, 0),
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeDuplicate, Code: 409},
				Payment{ID: "w", Seq: 2, Account: "A", Outcome: OutcomeDuplicate, Code: 409}),
			snaps: []AccountSnapshot{snap("A", 0, 100, 0, 90, 0)},
			final: true,
		},
	})
}

func TestReconcileWavesAndLookups(t *testing.T) {
	t.Parallel()
	checkReconcile(t, []reconcileCase{
		{
			name: "wave: no creation at all",
			ledger: wave(2, Payment{ID: "w", Seq: 0, Account: "A", Outcome: OutcomeDuplicate},
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeDuplicate}),
			snaps:     []AccountSnapshot{snap("A", 0, 100, 0, 100, 0)},
			final:     true,
			invariant: InvIdempotency,
		},
		{
			name: "wave: all refused alike, nothing debited",
			ledger: wave(3, Payment{ID: "w", Seq: 0, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "Saldo dan koin tidak mencukupi."},
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "Saldo dan koin tidak mencukupi."},
				Payment{ID: "w", Seq: 2, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "Saldo dan koin tidak mencukupi."}),
			snaps: []AccountSnapshot{snap("A", 0, 100, 0, 100, 0)},
			final: true,
		},
		{
			name: "wave: one created, the others 409 or one same refusal",
			ledger: wave(3, created("w", 0, "A", 10, 0),
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeDuplicate, Code: 409},
				Payment{ID: "w", Seq: 2, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "Saldo dan koin tidak mencukupi."}),
			snaps: []AccountSnapshot{snap("A", 0, 100, 0, 90, 0)},
			final: true,
		},
		{
			name: "wave: two different refusals",
			ledger: wave(2, Payment{ID: "w", Seq: 0, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "Saldo dan koin tidak mencukupi."},
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeRefused, Code: 400, Message: "Metode pembayaran tidak tersedia."}),
			snaps:     []AccountSnapshot{snap("A", 0, 100, 0, 100, 0)},
			final:     true,
			invariant: InvIdempotency,
		},
		{
			name: "wave: refused alike but debited",
			ledger: wave(2, Payment{ID: "w", Seq: 0, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "m"},
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeRefused, Code: 422, Message: "m"}),
			snaps:     []AccountSnapshot{snap("A", 0, 100, 0, 90, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name: "wave with a timed-out request",
			ledger: wave(2, created("w", 0, "A", 10, 0),
				Payment{ID: "w", Seq: 1, Account: "A", Outcome: OutcomeUncertain, MaxBalance: 10}),
			snaps: []AccountSnapshot{snap("A", 0, 100, 0, 90, 0)},
			final: true,
		},
		{
			name: "created but not found through status",
			ledger: func() []Payment {
				p := created("a", 1, "A", 100, 0)
				p.Lookup = &Lookup{Code: 404}
				return []Payment{p}
			}(),
			snaps:     []AccountSnapshot{snap("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvLost,
		},
		{
			name: "status amounts differ",
			ledger: func() []Payment {
				p := created("a", 1, "A", 100, 0)
				p.Lookup = &Lookup{Code: 200, TransactionNumber: "INV/a", Amount: &Amount{Total: 100, BalanceUsed: 90, GatewayPayment: 10}}
				return []Payment{p}
			}(),
			snaps:     []AccountSnapshot{snap("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvLookup,
		},
		{
			name:   "shared account is left to the merge",
			ledger: []Payment{created("a", 1, "A", 100, 0)},
			snaps:  []AccountSnapshot{func() AccountSnapshot { s := snap("A", 0, 1000, 0, 1000, 0); s.Shared = true; return s }()},
			final:  false,
			check: func(t *testing.T, r *Reconciliation) {
				assert.Contains(t, r.Accounts[0].Skipped, "merge")
			},
		},
		{
			name:      "wallet unreadable after created payments",
			ledger:    []Payment{created("a", 1, "A", 100, 0)},
			snaps:     []AccountSnapshot{{Account: "A", Error: "profile: HTTP 500"}},
			final:     true,
			invariant: InvBalance,
		},
	})
}

func TestReconcileMergesSharedAccountAcrossShards(t *testing.T) {
	t.Parallel()
	// Two shards paid with account A; each saw only its own debits, so each
	// shard's own view is wrong, but the merged view encloses both.
	ledger := []Payment{created("r-0-1", 1, "A", 100, 0), created("r-1-1", 1, "A", 200, 0)}
	s0 := snap("A", 0, 1000, 0, 800, 0) // shard 0 read after shard 1 had paid
	s1 := snap("A", 1, 900, 0, 700, 0)
	s0.Shared, s1.Shared = true, true
	r := Reconcile(ledger, []AccountSnapshot{s0, s1}, true)
	require.True(t, r.Passed(), "%+v", r.Violations)
	assert.Equal(t, int64(300), r.Accounts[0].BalanceChange) // 1000 (earliest before) − 700 (latest after)

	r = Reconcile(ledger[:1], []AccountSnapshot{s0, s1}, true) // a shard's ledger is missing
	assert.False(t, r.Passed())
}

func TestReconcileListsAtMostMaxDetailsPerInvariant(t *testing.T) {
	t.Parallel()
	var ledger []Payment
	for i := range 40 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		ledger = append(ledger, created(id, uint64(2*i), "A", 1, 0), created(id, uint64(2*i+1), "A", 1, 0))
	}
	r := Reconcile(ledger, nil, true)
	assert.Equal(t, 40, r.Counts[InvUniqueID])
	assert.Equal(t, 40-maxDetails, r.omitted(InvUniqueID))
	assert.Len(t, r.Violations, maxDetails+r.Counts[InvBalance])
	assert.Equal(t, 40+r.Counts[InvBalance], r.ViolationCount())
	rep := &Report{Requests: 1, Expected: 1, Reconciliation: r}
	rep.finish(nil)
	assert.Contains(t, rep.Failures, fmt.Sprintf("%d invariant violations", r.ViolationCount()))
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	assert.Contains(t, b.String(), fmt.Sprintf("[%s] … and %d more", InvUniqueID, 40-maxDetails))
	assert.Equal(t, 40, r.Duplicates)
}

// TestLedgerAmountFieldNames: the amount object of ledger.jsonl keeps the
// contract's field names (Amount is api.Amount).
func TestLedgerAmountFieldNames(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, WriteLedger(&b, []Payment{created("a", 1, "A", 100, 40)}))
	for _, k := range []string{`"total":120`, `"balance_used":100`, `"coin_used":40`, `"coin_value_used":20`, `"gateway_payment":0`} {
		assert.Contains(t, b.String(), k)
	}
	back, err := ReadLedger(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, []Payment{created("a", 1, "A", 100, 40)}, back)
}
