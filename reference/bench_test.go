package reference

import (
	"math"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// BenchmarkCreatePaymentDomain creates payments on the Store directly.
func BenchmarkCreatePaymentDomain(b *testing.B) {
	store, _ := newTestStore(b)
	c := caller(b, store, referencetest.KeyNusantara, "tok-nusantara-load-2")
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			in := payIn(1002, "081234567890", 0, "bench-domain-"+strconv.FormatInt(seq.Add(1), 10), true, true)
			if _, err := store.CreatePayment(c, in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoredPayments measures what payments cost as they accumulate
// toward a million: the heap each stored payment holds, the time to create one
// more once the store holds 0, 100k, 500k or 1M payments, and what the
// garbage collector pays for them. The store is filled before the timer
// starts; each size gets its own store. Each payment also makes the
// short-lived garbage of one HTTP request (requestGarbage), so that the
// collector runs as often as in the server and marks the stored payments
// each time: ns/op includes that marking. Reported metrics:
//
//   - heap-B/stored-payment: the live heap after a full collection, less
//     that of the empty store, divided by the payments stored;
//   - forced-gc-ms: the shortest of three forced full collections with the
//     filled store live (the marking work the stored payments cost);
//   - gc-cpu-%: the garbage collector's share of the CPU time during the
//     timed loop (runtime/metrics, /cpu/classes/gc/total against
//     /cpu/classes/total);
//   - fill-gc-cpu-%: the same share over the whole fill, from 0 to the size.
//
// The last sub-benchmark, interleaved, alternates batches of payments on
// the 1M store and on a fresh one and reports the median over rounds of
// their time ratio (1M/0, and cpu-1M/0 in process CPU time): a ratio taken
// in one run, which the load of a shared machine disturbs much less than the
// sizes' ns/op taken apart. Both
// stores live in one process, so the collector's marking weighs on both
// sides alike: the ratio is the store's own work (index, caches).
//
// Use a fixed count (-benchtime 200000x): with a duration the timed loop
// itself adds up to a million payments, and ns/op mixes the sizes.
func BenchmarkStoredPayments(b *testing.B) {
	for _, stored := range []int{0, 100_000, 500_000, 1_000_000} {
		b.Run("stored="+strconv.Itoa(stored), func(b *testing.B) {
			f := filledStore(b, stored)
			b.ReportAllocs()
			gc0 := readGCCPU()
			b.ResetTimer()
			for range b.N {
				createStored(b, f.store, f.caller, "more-"+strconv.FormatInt(f.next.Add(1), 10))
			}
			b.StopTimer()
			// After the timed loop: ResetTimer deletes reported metrics.
			b.ReportMetric(100*readGCCPU().shareSince(gc0), "gc-cpu-%")
			b.ReportMetric(float64(f.forcedGC.Microseconds())/1000, "forced-gc-ms")
			if stored > 0 {
				b.ReportMetric(f.heapPerPayment, "heap-B/stored-payment")
				b.ReportMetric(100*f.fillGC, "fill-gc-cpu-%")
			}
		})
	}
	b.Run("interleaved", benchmarkInterleaved)
}

// interleavedBatch is the number of payments of one side of a round.
const interleavedBatch = 5_000

// benchmarkInterleaved creates b.N payments in rounds: a batch on the store
// of 1M payments, then a batch on a fresh store (made before the timer
// runs), or the other way round on odd rounds. It reports the medians of
// the rounds' ratios (1M/0) of wall time and, where the system gives it, of
// the process's CPU time, which the other processes of a shared machine
// barely move.
func benchmarkInterleaved(b *testing.B) {
	big := filledStore(b, 1_000_000)
	var wall, cpu []float64
	type cost struct{ wall, cpu time.Duration }
	batch := func(store *Store, c Caller, name string, n int) cost {
		start, cpu0 := time.Now(), referencetest.ProcessCPU()
		for range n {
			createStored(b, store, c, name+strconv.FormatInt(big.next.Add(1), 10))
		}
		return cost{time.Since(start), referencetest.ProcessCPU() - cpu0}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; round++ {
		n := min(interleavedBatch, (b.N-done+1)/2)
		b.StopTimer()
		fresh, _ := newTestStore(b)
		freshCaller := caller(b, fresh, referencetest.KeyNusantara, "tok-nusantara-funded")
		b.StartTimer()
		var atBig, atZero cost
		if round%2 == 0 {
			atBig = batch(big.store, big.caller, "round-", n)
			atZero = batch(fresh, freshCaller, "round-", n)
		} else {
			atZero = batch(fresh, freshCaller, "round-", n)
			atBig = batch(big.store, big.caller, "round-", n)
		}
		done += 2 * n
		wall = append(wall, float64(atBig.wall)/float64(atZero.wall))
		if atZero.cpu > 0 {
			cpu = append(cpu, float64(atBig.cpu)/float64(atZero.cpu))
		}
	}
	b.StopTimer()
	b.ReportMetric(median(wall), "1M/0")
	if len(cpu) == len(wall) {
		b.ReportMetric(median(cpu), "cpu-1M/0")
	}
	b.ReportMetric(float64(len(wall)), "rounds")
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// filled is a store filled once per size: the benchmark framework calls a
// benchmark again for each b.N, and filling a million payments each time
// would cost more than the measurement.
type filled struct {
	store          *Store
	caller         Caller
	heapPerPayment float64
	forcedGC       time.Duration
	fillGC         float64 // the collector's share of the CPU time during the fill
	next           atomic.Int64
}

// lastFilled is the store of the size being measured. One at a time: the
// stores of the other sizes would weigh on the collector's figures.
var lastFilled struct {
	stored int
	f      *filled
}

func filledStore(b *testing.B, stored int) *filled {
	if lastFilled.f != nil && lastFilled.stored == stored {
		return lastFilled.f
	}
	lastFilled.f = nil
	before := heapInUse()
	store, _ := newTestStore(b)
	f := &filled{store: store, caller: caller(b, store, referencetest.KeyNusantara, "tok-nusantara-funded")}
	gc0 := readGCCPU()
	for i := range stored {
		createStored(b, store, f.caller, "fill-"+strconv.Itoa(i))
	}
	f.fillGC = readGCCPU().shareSince(gc0)
	if stored > 0 {
		f.heapPerPayment = float64(heapInUse()-before) / float64(stored)
	}
	f.forcedGC = forcedGC()
	runtime.KeepAlive(store)
	lastFilled.stored, lastFilled.f = stored, f
	return f
}

// requestGarbage is the short-lived garbage of one payment request in the
// HTTP server (BenchmarkCreatePaymentHTTP: about 11 KB/op).
const requestGarbage = 11 << 10

// garbage keeps the latest request garbage reachable, so that each is made
// on the heap.
var garbage []byte

// createStored makes one request's garbage and one balance-and-coin payment.
func createStored(b *testing.B, store *Store, c Caller, trxID string) {
	garbage = make([]byte, requestGarbage)
	if _, err := store.CreatePayment(c, payIn(1002, "081234567890", 0, trxID, true, true)); err != nil {
		b.Fatal(err)
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// forcedGC is the shortest of three forced full collections.
func forcedGC() time.Duration {
	best := time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		runtime.GC()
		best = min(best, time.Since(start))
	}
	return best
}

// gcCPU is the garbage collector's and the whole process's CPU time so far.
type gcCPU struct{ gc, total float64 }

func readGCCPU() gcCPU {
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(samples)
	return gcCPU{gc: samples[0].Value.Float64(), total: samples[1].Value.Float64()}
}

// shareSince is the collector's share of the CPU time since then.
func (now gcCPU) shareSince(then gcCPU) float64 {
	if now.total <= then.total {
		return 0
	}
	return (now.gc - then.gc) / (now.total - then.total)
}

// BenchmarkCreatePaymentState is BenchmarkCreatePaymentDomain with a state
// directory: every payment is fdatasynced to the journal before it returns,
// and 64 goroutines per CPU share the rounds (group commit), as concurrent
// requests do. disk-B/payment is the journal's growth per payment,
// payments/round how many share a round and µs/round what one costs.
func BenchmarkCreatePaymentState(b *testing.B) {
	dir := b.TempDir()
	store, _ := newTestStore(b, WithState(dir))
	b.Cleanup(func() { _ = store.Close() })
	c := caller(b, store, referencetest.KeyNusantara, "tok-nusantara-load-2")
	size0 := journalEnd(b, filepath.Join(dir, JournalName))
	frames0 := store.journal.Frames()
	var seq atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			in := payIn(1002, "081234567890", 0, "bench-state-"+strconv.FormatInt(seq.Add(1), 10), true, true)
			if _, err := store.CreatePayment(c, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(journalEnd(b, filepath.Join(dir, JournalName))-size0)/float64(b.N), "disk-B/payment")
	// A round of group commit: one frame written and fdatasynced, shared
	// by the payments that waited for it.
	frames := float64(store.journal.Frames() - frames0)
	b.ReportMetric(float64(b.N)/frames, "payments/round")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/frames, "µs/round")
}

// BenchmarkStateReplay measures a start over a journal of 100k payments:
// ns/op is one start, ns/payment its share per payment.
func BenchmarkStateReplay(b *testing.B) {
	const payments = 100_000
	dir := b.TempDir()
	store, _ := newTestStore(b, WithState(dir))
	c := caller(b, store, referencetest.KeyNusantara, "tok-nusantara-load-2")
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for n := g; n < payments; n += 64 {
				if _, err := store.CreatePayment(c, payIn(1002, "081234567890", 0, "replay-"+strconv.Itoa(n), true, true)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(b, store.Close())
	b.ResetTimer()
	for range b.N {
		s, _ := newTestStore(b, WithState(dir))
		require.NoError(b, s.Close())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/payments, "ns/payment")
}
