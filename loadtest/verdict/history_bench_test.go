package verdict

import (
	"math/rand/v2"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// syntheticHistory returns a linearizable history of n operations over
// accounts accounts: payments and (one in ten) profile reads that take
// effect at increasing instants, each invoked up to spread nanoseconds
// before and answered up to spread after, so that about rate·2·spread
// operations overlap.
func syntheticHistory(n, accounts int, gap, spread int64) []record.HistoryOp {
	rng := rand.New(rand.NewPCG(1, 2))
	bal := make([]int64, accounts)
	coins := make([]int64, accounts)
	for i := range bal {
		bal[i], coins[i] = 1_000_000_000, 1_000_000_000
	}
	names := make([]string, accounts)
	ops := make([]record.HistoryOp, 0, n+accounts)
	for i := range names {
		names[i] = string(rune('A' + i))
		ops = append(ops, hRead(1000+i, names[i], 1, 2, bal[i], coins[i]))
	}
	at := int64(1_000)
	for k := range n {
		at += gap
		a := rng.IntN(accounts)
		call, ret := at-rng.Int64N(spread)-1, at+rng.Int64N(spread)+1
		if k%10 == 0 {
			ops = append(ops, hRead(1000+a, names[a], call, ret, bal[a], coins[a]))
			continue
		}
		b, c := int64(1000+rng.IntN(50)*500), int64(0)
		if k%3 == 0 {
			b, c = 0, int64(2*(1000+rng.IntN(50)*500))
		}
		bal[a] -= b
		coins[a] -= c
		ops = append(ops, hPay(k%256, names[a], "id"+strconv.Itoa(k), call, ret, record.OutcomeCreated, b, c))
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Invoke < ops[j].Invoke })
	return ops
}

// benchHistoryTimeout bounds each check of the benchmark: a history whose
// segments overlap too much is reported undecided rather than waited for.
const benchHistoryTimeout = 30 * time.Second

// BenchmarkCheckHistory measures the history check on a 100k-operation
// history of 8 accounts at several degrees of overlap (operations in
// flight at once, over all accounts); ops/s is operations checked per second, MB the
// memory allocated per check. Not part of `make test`: run it with
// `go test -run '^$' -bench CheckHistory ./loadtest/`.
func BenchmarkCheckHistory(b *testing.B) {
	for _, bc := range []struct {
		name        string
		gap, spread int64
	}{
		// 2 000 operations per second, each up to 1 ms in flight: ~4 overlap
		// over all accounts (a 200/s run against a fast server overlaps less).
		{"overlap-4", 500_000, 1_000_000},
		// 10 000 per second, up to 1 ms in flight: ~20 overlap.
		{"overlap-20", 100_000, 1_000_000},
		// 2 000 per second, up to 5 ms in flight (a slow server): ~20 overlap.
		{"overlap-20-slow", 500_000, 5_000_000},
		// 10 000 per second, up to 2 ms in flight: ~40 overlap.
		{"overlap-40", 100_000, 2_000_000},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ops := syntheticHistory(100_000, 8, bc.gap, bc.spread)
			b.ReportAllocs()
			undecided, boundsOnly, reads := 0, 0, 0
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			b.ResetTimer()
			for range b.N {
				hc := CheckHistory(ops, benchHistoryTimeout)
				if hc.Verdict == HistoryIllegal {
					b.Fatal(hc.String())
				}
				undecided, boundsOnly, reads = hc.Undecided, hc.BoundsOnly, hc.Reads
			}
			b.StopTimer()
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(len(ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(undecided), "undecided-segments")
			b.ReportMetric(float64(boundsOnly)/float64(max(reads, 1))*100, "%reads-bounds-only")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/1e6, "MB/check")
		})
	}
}
