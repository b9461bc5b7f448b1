// Package recordtest builds the pieces of a run's record that the tests of
// the verdicts, the reports and the load tester share: created payments,
// wallet snapshots, runs recorded into a test's directory as the load
// tester records them, and a target whose payments overlap (Paired).
package recordtest

import (
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// T0 is the time the wallets of Snapshot are read from.
var T0 = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

// Created is a balance payment id (sequence seq) of account acct, created
// for bal rupiah and coins coins, whose status look-up found it with the
// same amounts.
func Created(id string, seq uint64, acct string, bal, coins int64) record.Payment {
	a := &record.Amount{Total: bal + contract.CoinValue(coins), BalanceUsed: bal, CoinUsed: coins, CoinValueUsed: contract.CoinValue(coins)}
	return record.Payment{ID: id, Seq: seq, Account: acct, Kind: record.KindBalance, Outcome: record.OutcomeCreated, Code: 200,
		TransactionNumber: "INV/" + id, Amount: a,
		Lookup: &record.Lookup{Code: 200, TransactionNumber: "INV/" + id, Amount: a}}
}

// Snapshot is the wallets of account acct, read by shard before (bal0,
// coins0) and after (bal1, coins1) the run.
func Snapshot(acct string, shard int, bal0, coins0, bal1, coins1 int64) record.AccountSnapshot {
	return record.AccountSnapshot{Account: acct, Shard: shard,
		Before: &record.Wallet{Balance: bal0, Coins: coins0, At: T0.Add(time.Duration(shard) * time.Second)},
		After:  &record.Wallet{Balance: bal1, Coins: coins1, At: T0.Add(time.Minute + time.Duration(shard)*time.Second)}}
}

// Record records hits into a directory of tb, as the load tester's
// recorder does while a run's attack goes, and returns run with its files
// and its tally, whose charts start at the run's start (or its first
// hit's scheduled time).
func Record(tb testing.TB, run *record.Run, hits ...record.HitResult) *record.Run {
	tb.Helper()
	start := run.Meta.Began
	if start.IsZero() && len(hits) > 0 {
		start = hits[0].Result.Scheduled
	}
	rec, err := record.NewRecorder(tb.TempDir(), record.NewTally(start, time.Minute, run.Meta.LateAfter, false))
	require.NoError(tb, err)
	for i := range hits {
		rec.Add(&hits[i])
	}
	require.NoError(tb, rec.Close(run))
	return run
}

// Ledger records payments, each the ledger entry of a create request sent
// at its At (T0 when it has none), with the wallets snaps: the record of a
// single-shard run reconciled to its end.
func Ledger(tb testing.TB, payments []record.Payment, snaps ...record.AccountSnapshot) *record.Run {
	tb.Helper()
	hits := make([]record.HitResult, len(payments))
	for i := range payments {
		p := payments[i]
		at := p.At
		if at.IsZero() {
			at = T0
		}
		hits[i] = record.HitResult{Pay: &p, Result: record.Result{Op: record.OpCreate, Scheduled: at,
			Result: vegeta.Result{Attack: record.OpCreate, Timestamp: at, Code: uint16(p.Code)}}}
	}
	run := &record.Run{Meta: record.Meta{Settings: record.Settings{Shard: record.SingleShard}, Reconciled: true}, Accounts: snaps}
	return Record(tb, run, hits...)
}

// Results reads the results of run.
func Results(tb testing.TB, run *record.Run) []record.Result {
	tb.Helper()
	return all(tb, run.EachResult)
}

// Payments reads the ledger of run.
func Payments(tb testing.TB, run *record.Run) []record.Payment {
	tb.Helper()
	return all(tb, run.EachPayment)
}

// History reads the history of run.
func History(tb testing.TB, run *record.Run) []record.HistoryOp {
	tb.Helper()
	return all(tb, run.EachHistoryOp)
}

// all gathers what each calls its function with.
func all[T any](tb testing.TB, each func(func(*T) error) error) []T {
	tb.Helper()
	var out []T
	require.NoError(tb, each(func(v *T) error { out = append(out, *v); return nil }))
	return out
}

// HeapAfterGC is the live heap once collected: what the memory benchmarks
// compare before and after recording.
func HeapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Paired serves h, holding each payment creation until another of the
// same account (its Authorization) comes, or pairWait has passed: two of
// an account's debits, and two requests of a wave, are then in flight
// together however loaded the machine, as the rules that need overlap want
// (report.Exercise), and a short run at a modest rate exercises them.
func Paired(h http.Handler) http.Handler {
	var mu sync.Mutex
	waiting := map[string]chan struct{}{} // by account, the creation held
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/client/v2/payment" {
			key := r.Header.Get("Authorization")
			mu.Lock()
			if held, ok := waiting[key]; ok {
				delete(waiting, key)
				close(held) // both in flight: go on together
				mu.Unlock()
			} else {
				held := make(chan struct{})
				waiting[key] = held
				mu.Unlock()
				t := time.NewTimer(pairWait)
				select {
				case <-held:
				case <-t.C: // no other came: go on alone
					mu.Lock()
					if waiting[key] == held {
						delete(waiting, key)
					}
					mu.Unlock()
				}
				t.Stop()
			}
		}
		h.ServeHTTP(w, r)
	})
}

// pairWait bounds how long Paired holds a payment for another.
const pairWait = time.Second
