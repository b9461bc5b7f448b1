package reference

import (
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
