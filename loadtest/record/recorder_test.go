package record

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heapAfterGC is the live heap once the collector has run.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// recordSynthetic records n create results with their ledger entries, as
// the collector would, into a recorder streaming to dir.
func recordSynthetic(tb testing.TB, dir string, n int) (*Recorder, *Run) {
	tb.Helper()
	at := time.Now()
	rec, err := NewRecorder(dir, NewTally(at, time.Duration(n/5)*time.Millisecond, 10*time.Millisecond, false))
	require.NoError(tb, err)
	rng := rand.New(rand.NewPCG(21, 4))
	for i, r := range syntheticResults(rng, at, n, 0, 5000) {
		p := Payment{ID: "run-0-" + strconv.Itoa(i), Seq: uint64(i), Account: "load_customers[0]", Kind: KindBalance, ProductID: 1002,
			MaxBalance: 5000, At: r.Timestamp, Outcome: OutcomeCreated, Code: 200, TransactionNumber: "INV/20261125/P1/" + strconv.Itoa(i),
			Amount: &Amount{BalanceUsed: 5000, Total: 5000}}
		rec.Add(&HitResult{r, &p})
	}
	o := &Run{}
	require.NoError(tb, rec.Close(o))
	return rec, o
}

// TestRecorderStreams: every result and ledger entry a recorder is given
// is in its files, and counted.
func TestRecorderStreams(t *testing.T) {
	t.Parallel()
	_, o := recordSynthetic(t, t.TempDir(), 3000)
	results, payments := 0, 0
	require.NoError(t, o.EachResult(func(r *Result) error {
		results++
		assert.NotZero(t, r.Latency)
		return nil
	}))
	require.NoError(t, o.EachPayment(func(*Payment) error { payments++; return nil }))
	assert.Equal(t, 3000, results)
	assert.Equal(t, 3000, payments)
	assert.Equal(t, 3000, o.Tally.Requests())
}

// BenchmarkRecorderRetained measures the heap a recorder keeps per result,
// from 25,000 to 100,000 recorded create results (5 s and 20 s at
// 5,000/s): what the load tester's memory grows by with a run's length,
// without the noise of a live attack. The goal is at most 50 B.
func BenchmarkRecorderRetained(b *testing.B) {
	var per float64
	for range b.N {
		before := heapAfterGC()
		r25k, _ := recordSynthetic(b, b.TempDir(), 25_000)
		mid := heapAfterGC()
		r100k, _ := recordSynthetic(b, b.TempDir(), 100_000)
		after := heapAfterGC()
		runtime.KeepAlive(r25k)
		runtime.KeepAlive(r100k)
		long, short := float64(after)-float64(mid), float64(mid)-float64(before)
		per += (long - short) / 75_000
	}
	b.ReportMetric(per/float64(b.N), "retained-B/result")
}

// BenchmarkRecorderAdd is the collector's cost per create result and its
// ledger entry, streamed to files: counted, encoded, written.
func BenchmarkRecorderAdd(b *testing.B) {
	at := time.Now()
	rec, err := NewRecorder(b.TempDir(), NewTally(at, time.Minute, 10*time.Millisecond, false))
	require.NoError(b, err)
	rng := rand.New(rand.NewPCG(21, 5))
	rs := syntheticResults(rng, at, 4096, 0, 5000)
	ps := make([]Payment, len(rs))
	for i := range ps {
		ps[i] = Payment{ID: "run-0-" + strconv.Itoa(i), Seq: uint64(i), Account: "load_customers[0]", Kind: KindBalance, ProductID: 1002,
			MaxBalance: 5000, At: rs[i].Timestamp, Outcome: OutcomeCreated, Code: 200, TransactionNumber: "INV/20261125/P1/" + strconv.Itoa(i),
			Amount: &Amount{BalanceUsed: 5000, Total: 5000}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := i % len(rs)
		rec.Add(&HitResult{rs[k], &ps[k]})
	}
	b.StopTimer()
	require.NoError(b, rec.Close(&Run{}))
}
