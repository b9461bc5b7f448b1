package loadtest

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
)

// TestSeqMarksChooseWhatTheLedgerWouldLookUp: read in any order, the marks
// choose per id the created request with the lowest sequence number (of
// a wave's, which share one, the first), or, with none created, the first
// that needs resolving, and nothing else.
func TestSeqMarksChooseWhatTheLedgerWouldLookUp(t *testing.T) {
	t.Parallel()
	wave := func(outcome string) record.Payment {
		return record.Payment{ID: "w", Seq: 4, Wave: 4, Outcome: outcome}
	}
	retry := func(attempt int, outcome string) record.Payment {
		return record.Payment{ID: "r", Seq: 9, Attempt: attempt, Outcome: outcome}
	}
	ledger := []record.Payment{
		{ID: "a", Seq: 0, Outcome: record.OutcomeCreated},
		{ID: "b", Seq: 1, Outcome: record.OutcomeRefused},
		{ID: "c", Seq: 2, Outcome: record.OutcomeUncertain},
		// A wave of 4: two created (a duplicate).
		wave(record.OutcomeDuplicate), wave(record.OutcomeCreated), wave(record.OutcomeCreated), wave(record.OutcomeUncertain),
		// A retry: lost, then 409 on its second send.
		retry(1, record.OutcomeUncertain), retry(2, record.OutcomeDuplicate),
		{ID: "d", Seq: 10, Outcome: record.OutcomeNotDelivered},
	}
	var m seqMarks
	for i := range ledger {
		m.note(&ledger[i], false)
	}
	// The progress total counts sequence numbers with a created or a
	// resolving request.
	assert.Equal(t, 4, m.toLookUp(), "0, 2, 4, 9")
	var chosen []uint64
	for i := range ledger {
		if m.choose(&ledger[i], false) {
			chosen = append(chosen, ledger[i].Seq)
		}
	}
	assert.Equal(t, []uint64{0, 2, 4, 9}, chosen, "a; c (uncertain); the wave's first created; the retry's first lost send")

	var faults seqMarks
	for i := range ledger {
		faults.note(&ledger[i], true)
	}
	chosen = nil
	for i := range ledger {
		if faults.choose(&ledger[i], true) {
			chosen = append(chosen, ledger[i].Seq)
		}
	}
	assert.Equal(t, []uint64{0, 1, 2, 4, 9, 10}, chosen, "under faults every id, refused and not delivered too")
	assert.False(t, m.choose(&record.Payment{ID: "z", Seq: 1 << 40, Outcome: record.OutcomeCreated}, false), "a sequence number never noted")
}

// recordReconciled records n create results with their ledger entries
// through the collector's path of a reconciled run into dir: the ledger
// streamed and a byte per payment marked.
func recordReconciled(tb testing.TB, dir string, n int) *engine {
	tb.Helper()
	at := time.Now()
	rec, err := record.NewRecorder(dir, record.NewTally(at, time.Duration(n/5)*time.Millisecond, 10*time.Millisecond, false))
	require.NoError(tb, err)
	e := &engine{cfg: &config{}, rec: rec, marks: &seqMarks{}}
	for i := range n {
		sent := at.Add(time.Duration(i) * 200 * time.Microsecond)
		r := record.Result{Result: vegeta.Result{Attack: record.OpCreate, Seq: uint64(i), Code: 200, Timestamp: sent,
			Latency: time.Millisecond, BytesOut: 180, BytesIn: 420, Method: "POST", URL: "http://127.0.0.1/v2/payment"},
			Scheduled: sent, Op: record.OpCreate, Expected: true, Allowed: true}
		p := record.Payment{ID: "run-0-" + strconv.Itoa(i), Seq: uint64(i), Account: "load_customers[0]", Kind: record.KindBalance,
			ProductID: 1002, MaxBalance: 5000, At: sent, Outcome: record.OutcomeCreated, Code: 200,
			TransactionNumber: "INV/20261125/P1/" + strconv.Itoa(i), Amount: &record.Amount{BalanceUsed: 5000, Total: 5000}}
		e.keep(&record.HitResult{Result: r, Pay: &p})
	}
	require.NoError(tb, rec.Close(&record.Run{}))
	return e
}

// BenchmarkReconciledRunRetained measures the heap a reconciled run keeps
// per payment after its attack, for the look-ups and the reconciliation,
// from 25,000 to 100,000 payments (5 s and 20 s at 5,000/s): a byte per
// payment.
func BenchmarkReconciledRunRetained(b *testing.B) {
	var marked float64
	for range b.N {
		before := recordtest.HeapAfterGC()
		short := recordReconciled(b, b.TempDir(), 25_000)
		mid := recordtest.HeapAfterGC()
		long := recordReconciled(b, b.TempDir(), 100_000)
		after := recordtest.HeapAfterGC()
		runtime.KeepAlive(short)
		runtime.KeepAlive(long)
		marked += ((float64(after) - float64(mid)) - (float64(mid) - float64(before))) / 75_000
	}
	b.ReportMetric(marked/float64(b.N), "retained-B/payment")
}
