package verdict

import (
	"testing"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wave(n int, ps ...record.Payment) []record.Payment {
	for i := range ps {
		ps[i].Wave = n
	}
	return ps
}

// waveAnswer is the answer to request seq of the wave of id "w" of account
// A that did not create it: a 409, or a refusal with its code and message.
func waveAnswer(seq uint64, outcome string, code int, message string) record.Payment {
	return record.Payment{ID: "w", Seq: seq, Account: "A", Outcome: outcome, Code: code, Message: message}
}

// reconcileCase is a ledger and its wallets, and the invariant their
// reconciliation breaks.
type reconcileCase struct {
	name      string
	ledger    []record.Payment
	snaps     []record.AccountSnapshot
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
func uncertainPayment(id string, seq uint64, maxBal int64) record.Payment {
	return record.Payment{ID: id, Seq: seq, Account: "A", Kind: record.KindBalance, MaxBalance: maxBal, Outcome: record.OutcomeUncertain}
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	checkReconcile(t, []reconcileCase{
		{
			name:   "exact",
			ledger: []record.Payment{recordtest.Created("a", 1, "A", 100, 0), recordtest.Created("b", 2, "A", 50, 30)},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 1000, 850, 970)},
			final:  true,
		},
		{
			name:      "lost update: balance fell by less than the debits",
			ledger:    []record.Payment{recordtest.Created("a", 1, "A", 100, 0), recordtest.Created("b", 2, "A", 100, 0)},
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name:      "coins off",
			ledger:    []record.Payment{recordtest.Created("a", 1, "A", 0, 40)},
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 0, 100, 0, 20)},
			final:     true,
			invariant: InvCoins,
		},
		{
			name:   "refused requests debit nothing",
			ledger: []record.Payment{recordtest.Created("a", 1, "A", 100, 0), {ID: "b", Seq: 2, Account: "A", Outcome: record.OutcomeRefused, Code: 422, MaxBalance: 500}},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:  true,
		},
		{
			name:   "timed out request that did not debit is within the bound",
			ledger: []record.Payment{recordtest.Created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
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
			ledger: []record.Payment{recordtest.Created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 650, 0)},
			final:  true,
		},
		{
			name:      "debit above what the timed-out requests could explain",
			ledger:    []record.Payment{recordtest.Created("a", 1, "A", 100, 0), uncertainPayment("b", 2, 300)},
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 599, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name:      "an id created twice",
			ledger:    []record.Payment{recordtest.Created("a", 1, "A", 100, 0), recordtest.Created("a", 2, "A", 100, 0)},
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 800, 0)},
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
			ledger: wave(3, recordtest.Created("w", 0, "A", 10, 0),
				waveAnswer(1, record.OutcomeDuplicate, 409, ""),
				waveAnswer(2, record.OutcomeDuplicate, 409, "")),
			snaps: []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 90, 0)},
			final: true,
		},
	})
}

// TestReconcileWaves: the answers of an idempotency wave, one id sent at
// once by several workers.
func TestReconcileWaves(t *testing.T) {
	t.Parallel()
	checkReconcile(t, []reconcileCase{
		{
			name: "wave: no creation at all",
			ledger: wave(2, waveAnswer(0, record.OutcomeDuplicate, 0, ""),
				waveAnswer(1, record.OutcomeDuplicate, 0, "")),
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 100, 0)},
			final:     true,
			invariant: InvIdempotency,
		},
		{
			name: "wave: all refused alike, nothing debited",
			ledger: wave(3, waveAnswer(0, record.OutcomeRefused, 422, "Saldo dan koin tidak mencukupi."),
				waveAnswer(1, record.OutcomeRefused, 422, "Saldo dan koin tidak mencukupi."),
				waveAnswer(2, record.OutcomeRefused, 422, "Saldo dan koin tidak mencukupi.")),
			snaps: []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 100, 0)},
			final: true,
		},
		{
			name: "wave: one created, the others 409 or one same refusal",
			ledger: wave(3, recordtest.Created("w", 0, "A", 10, 0),
				waveAnswer(1, record.OutcomeDuplicate, 409, ""),
				waveAnswer(2, record.OutcomeRefused, 422, "Saldo dan koin tidak mencukupi.")),
			snaps: []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 90, 0)},
			final: true,
		},
		{
			name: "wave: two different refusals, a warning of the reading",
			ledger: wave(2, waveAnswer(0, record.OutcomeRefused, 422, "Saldo dan koin tidak mencukupi."),
				waveAnswer(1, record.OutcomeRefused, 400, "Metode pembayaran tidak tersedia.")),
			snaps: []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 100, 0)},
			final: true,
			check: func(t *testing.T, r *Reconciliation) {
				assert.Equal(t, map[string]int{"wave-refusals-alike": 1}, r.WarningCounts)
				require.Len(t, r.Warnings, 1)
				assert.Equal(t, contract.MustReading("wave-refusals-alike").Sentence, r.Warnings[0].Sentence)
				assert.Contains(t, r.Warnings[0].Detail, "w: wave of 2 refused in 2 ways: [1 × HTTP 400: Metode pembayaran tidak tersedia. 1 × HTTP 422: Saldo dan koin tidak mencukupi.]")
				assert.Empty(t, r.Violations, "a warning is no violation")
			},
		},
		{
			name: "wave: two created and two refusals, a violation only",
			ledger: wave(4, recordtest.Created("w", 0, "A", 10, 0), recordtest.Created("w", 1, "A", 10, 0),
				waveAnswer(2, record.OutcomeRefused, 422, "m"), waveAnswer(3, record.OutcomeRefused, 400, "n")),
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 80, 0)},
			final:     true,
			invariant: InvIdempotency,
		},
		{
			name: "wave: refused alike but debited",
			ledger: wave(2, waveAnswer(0, record.OutcomeRefused, 422, "m"),
				waveAnswer(1, record.OutcomeRefused, 422, "m")),
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 90, 0)},
			final:     true,
			invariant: InvBalance,
		},
		{
			name: "wave with a timed-out request",
			ledger: wave(2, recordtest.Created("w", 0, "A", 10, 0),
				record.Payment{ID: "w", Seq: 1, Account: "A", Outcome: record.OutcomeUncertain, MaxBalance: 10}),
			snaps: []record.AccountSnapshot{recordtest.Snapshot("A", 0, 100, 0, 90, 0)},
			final: true,
		},
	})
}

// TestReconcileLookupsAndWallets: what payment status found after the run,
// and accounts whose wallets cannot be compared.
func TestReconcileLookupsAndWallets(t *testing.T) {
	t.Parallel()
	checkReconcile(t, []reconcileCase{
		{
			name: "created but not found through status",
			ledger: func() []record.Payment {
				p := recordtest.Created("a", 1, "A", 100, 0)
				p.Lookup = &record.Lookup{Code: 404}
				return []record.Payment{p}
			}(),
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvLost,
		},
		{
			name:   "status amounts differ: a warning of the reading",
			ledger: []record.Payment{lookedUpAs(100, 7, &record.Lookup{Code: 200, TransactionNumber: "INV/a", ProductID: 7, Amount: &record.Amount{Total: 100, BalanceUsed: 90, GatewayPayment: 10}})},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:  true,
			check:  warnsRecordAmounts("amount.balance_used is 90, but the payment was created with 100"),
		},
		{
			name:   "status product differs: a warning of the reading",
			ledger: []record.Payment{lookedUpAs(100, 7, &record.Lookup{Code: 200, TransactionNumber: "INV/a", ProductID: 8, Amount: &record.Amount{Total: 100, BalanceUsed: 100}})},
			snaps:  []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:  true,
			check:  warnsRecordAmounts("product.id is 8, but the payment was created with 7"),
		},
		{
			name:      "status names another transaction: a failure",
			ledger:    []record.Payment{lookedUpAs(100, 7, &record.Lookup{Code: 200, TransactionNumber: "INV/b", ProductID: 7, Amount: &record.Amount{Total: 100, BalanceUsed: 100}})},
			snaps:     []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)},
			final:     true,
			invariant: InvLookup,
		},
		{
			name:   "shared account is left to the merge",
			ledger: []record.Payment{recordtest.Created("a", 1, "A", 100, 0)},
			snaps: []record.AccountSnapshot{func() record.AccountSnapshot {
				s := recordtest.Snapshot("A", 0, 1000, 0, 1000, 0)
				s.Shared = true
				return s
			}()},
			final: false,
			check: func(t *testing.T, r *Reconciliation) {
				assert.Contains(t, r.Accounts[0].Skipped, "merge")
			},
		},
		{
			name:      "wallet unreadable after created payments",
			ledger:    []record.Payment{recordtest.Created("a", 1, "A", 100, 0)},
			snaps:     []record.AccountSnapshot{{Account: "A", Error: "profile: HTTP 500"}},
			final:     true,
			invariant: InvBalance,
		},
	})
}

// lookedUpAs is a balance payment "a" of account A for product, debiting
// bal, whose status look-up found l.
func lookedUpAs(bal, product int64, l *record.Lookup) record.Payment {
	p := recordtest.Created("a", 1, "A", bal, 0)
	p.ProductID, p.Lookup = product, l
	return p
}

// warnsRecordAmounts checks that a reconciliation passed with one warning
// of the reading status-record-amounts, whose detail holds detail.
func warnsRecordAmounts(detail string) func(*testing.T, *Reconciliation) {
	return func(t *testing.T, r *Reconciliation) {
		assert.Equal(t, map[string]int{"status-record-amounts": 1}, r.WarningCounts)
		require.Len(t, r.Warnings, 1)
		assert.Equal(t, contract.MustReading("status-record-amounts").Sentence, r.Warnings[0].Sentence)
		assert.Contains(t, r.Warnings[0].Detail, detail)
		assert.Empty(t, r.Entries, "a warning is no violation")
	}
}

func TestReconcileMergesSharedAccountAcrossShards(t *testing.T) {
	t.Parallel()
	// Two shards paid with account A; each saw only its own debits, so each
	// shard's own view is wrong, but the merged view encloses both.
	ledger := []record.Payment{recordtest.Created("r-0-1", 1, "A", 100, 0), recordtest.Created("r-1-1", 1, "A", 200, 0)}
	s0 := recordtest.Snapshot("A", 0, 1000, 0, 800, 0) // shard 0 read after shard 1 had paid
	s1 := recordtest.Snapshot("A", 1, 900, 0, 700, 0)
	s0.Shared, s1.Shared = true, true
	r := Reconcile(ledger, []record.AccountSnapshot{s0, s1}, true)
	require.True(t, r.Passed(), "%+v", r.Violations)
	assert.Equal(t, int64(300), r.Accounts[0].BalanceChange) // 1000 (earliest before) − 700 (latest after)

	r = Reconcile(ledger[:1], []record.AccountSnapshot{s0, s1}, true) // a shard's ledger is missing
	assert.False(t, r.Passed())
}

func TestReconcileListsAtMostMaxDetailsPerInvariant(t *testing.T) {
	t.Parallel()
	var ledger []record.Payment
	for i := range 40 {
		id := string(rune('a'+i%26)) + string(rune('a'+i/26))
		ledger = append(ledger, recordtest.Created(id, uint64(2*i), "A", 1, 0), recordtest.Created(id, uint64(2*i+1), "A", 1, 0))
	}
	r := Reconcile(ledger, nil, true)
	assert.Equal(t, 40, r.Counts[InvUniqueID])
	assert.Equal(t, 40-maxDetails, r.Omitted(InvUniqueID))
	assert.Len(t, r.Violations, maxDetails+r.Counts[InvBalance])
	assert.Equal(t, 40+r.Counts[InvBalance], r.ViolationCount())
	assert.Equal(t, 40, r.Duplicates)
}

// TestNotDeliveredIsNoDebit: an id whose only send was not delivered is
// neither uncertain nor a possible debit: the wallet must not have moved.
func TestNotDeliveredIsNoDebit(t *testing.T) {
	t.Parallel()
	r := Reconcile([]record.Payment{{ID: "n", Seq: 1, Account: "A", Outcome: record.OutcomeNotDelivered, MaxBalance: 100}},
		[]record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, 900, 0)}, true)
	assert.Zero(t, r.UncertainIDs)
	assert.Equal(t, 1, r.Counts[InvBalance], "a debit for a request that never arrived is a mismatch")
}

// TestReconcileNamesWhatExplainsWhat: the reconciliation says, entry by
// entry, which finding explains which (Entry.Cause) and what was found
// within a class (Entry.Kind): an id created twice explains its broken
// wave, its look-up naming another transaction and its wallet off by the
// extra creation; a lost write explains its wallet falling by less; a
// wallet off by what the 409 answers to a reused id would take, by what
// throttled or refused payments could have, or by less, or up, says so.
func TestReconcileNamesWhatExplainsWhat(t *testing.T) {
	t.Parallel()
	other := func(p record.Payment) record.Payment {
		p.Lookup = &record.Lookup{Code: 200, Amount: p.Amount, TransactionNumber: "INV/other"}
		return p
	}
	dup1, dup2 := other(recordtest.Created("d", 0, "A", 100, 0)), recordtest.Created("d", 1, "A", 100, 0) // status names the second
	lost := recordtest.Created("l", 1, "A", 100, 0)
	lost.Lookup = &record.Lookup{Code: 404, Message: contract.MsgNotFound}
	throttled := record.Payment{ID: "t", Seq: 2, Account: "A", Outcome: record.OutcomeThrottled, Code: 429, MaxBalance: 300}
	refusedOnce := record.Payment{ID: "r", Seq: 3, Account: "A", Outcome: record.OutcomeRefused, Code: 422, MaxBalance: 300}
	for _, tc := range []struct {
		name        string
		ledger      []record.Payment
		after       int64 // balance after, from 1000
		want        map[entryKey]string
		wantClasses int
	}{
		{"created twice", wave(2, dup1, dup2), 800, map[entryKey]string{
			{ClassDuplicate, ""}:                       "",
			{ClassIdempotency, KindWaveCreatedTwice}:   ClassDuplicate,
			{ClassNotReconciled, KindOtherTransaction}: ClassDuplicate,
			{ClassWalletMismatch, KindOver}:            ClassDuplicate,
		}, 4},
		{"a 409 to a reused id took the id's amount again", wave(3, recordtest.Created("w", 0, "A", 100, 0),
			waveAnswer(1, record.OutcomeDuplicate, 409, contract.MsgDuplicate), waveAnswer(2, record.OutcomeDuplicate, 409, contract.MsgDuplicate)),
			700, map[entryKey]string{{ClassWalletMismatch, KindOverReuse}: ""}, 1},
		{"a lost write forgot its debit", []record.Payment{lost}, 1000, map[entryKey]string{
			{ClassLost, ""}: "", {ClassWalletMismatch, KindUnder}: ClassLost}, 2},
		{"a throttled payment took", []record.Payment{throttled}, 800, map[entryKey]string{{ClassWalletMismatch, KindOverThrottled}: ""}, 1},
		{"a refused payment took", []record.Payment{refusedOnce}, 800, map[entryKey]string{{ClassWalletMismatch, KindOverRefused}: ""}, 1},
		{"debits lost", []record.Payment{recordtest.Created("a", 0, "A", 100, 0), recordtest.Created("b", 1, "A", 100, 0)}, 900,
			map[entryKey]string{{ClassWalletMismatch, KindUnder}: ""}, 1},
		{"the wallet rose", []record.Payment{recordtest.Created("a", 0, "A", 100, 0)}, 1100, map[entryKey]string{{ClassWalletMismatch, KindRose}: ""}, 1},
		{"more than any answer says", []record.Payment{recordtest.Created("a", 0, "A", 100, 0)}, 500, map[entryKey]string{{ClassWalletMismatch, KindOver}: ""}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Reconcile(tc.ledger, []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1000, 0, tc.after, 0)}, true)
			got := map[entryKey]string{}
			for _, e := range r.Entries {
				got[entryKey{e.Class, e.Kind}] = e.Cause
			}
			assert.Equal(t, tc.want, got, "%+v", r.Entries)
			assert.Len(t, got, tc.wantClasses)
		})
	}
}

// entryKey is an entry's class and kind.
type entryKey struct{ class, kind string }
