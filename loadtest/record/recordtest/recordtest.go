// Package recordtest builds the pieces of a run's record that the tests of
// the verdicts, the reports and the load tester share: created payments
// and wallet snapshots.
package recordtest

import (
	"runtime"
	"time"

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

// HeapAfterGC is the live heap once collected: what the memory benchmarks
// compare before and after recording.
func HeapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
