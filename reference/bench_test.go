package reference

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
)

// BenchmarkCreatePaymentDomain creates payments on the Store directly.
func BenchmarkCreatePaymentDomain(b *testing.B) {
	store, _ := newTestStore(b)
	c := caller(b, store, keyNusantara, "tok-nusantara-load-2")
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
// (issue 14): the heap each stored payment holds, and the time to create one
// more once the store holds 0, 100k, 500k or 1M payments. The store is filled
// before the timer starts; each size gets its own store.
func BenchmarkStoredPayments(b *testing.B) {
	for _, stored := range []int{0, 100_000, 500_000, 1_000_000} {
		b.Run("stored="+strconv.Itoa(stored), func(b *testing.B) {
			f := filledStore(b, stored)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				in := payIn(1002, "081234567890", 0, "more-"+strconv.FormatInt(f.next.Add(1), 10), true, true)
				if _, err := f.store.CreatePayment(f.caller, in); err != nil {
					b.Fatal(err)
				}
			}
			if stored > 0 { // after the timed loop: ResetTimer deletes reported metrics
				b.ReportMetric(f.heapPerPayment, "heap-B/stored-payment")
			}
		})
	}
}

// filled is a store filled once per size: the benchmark framework calls a
// benchmark again for each b.N, and filling a million payments each time
// would cost more than the measurement.
type filled struct {
	store          *Store
	caller         Caller
	heapPerPayment float64
	next           atomic.Int64
}

var filledStores = map[int]*filled{}

func filledStore(b *testing.B, stored int) *filled {
	if f, ok := filledStores[stored]; ok {
		return f
	}
	store, _ := newTestStore(b)
	f := &filled{store: store, caller: caller(b, store, keyNusantara, "tok-nusantara-funded")}
	before := heapInUse()
	for i := range stored {
		in := payIn(1002, "081234567890", 0, "fill-"+strconv.Itoa(i), true, true)
		if _, err := store.CreatePayment(f.caller, in); err != nil {
			b.Fatal(err)
		}
	}
	if stored > 0 {
		f.heapPerPayment = float64(heapInUse()-before) / float64(stored)
	}
	filledStores[stored] = f
	return f
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
