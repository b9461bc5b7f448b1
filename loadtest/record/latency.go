package record

import (
	"sort"
	"time"
)

// Latencies summarises a set of latencies.
type Latencies struct {
	Count int           `json:"count"`
	Min   time.Duration `json:"min"`
	Mean  time.Duration `json:"mean"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P95   time.Duration `json:"p95"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
	// Method names how the percentiles were computed: MethodExact or
	// MethodHDR (see PercentileMethods).
	Method string `json:"method,omitempty"`
}

// Summarize computes exact percentiles (nearest rank) of ds, as every
// report of the load tester does; it sorts ds.
func Summarize(ds []time.Duration) Latencies {
	if len(ds) == 0 {
		return Latencies{}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return Latencies{
		Method: MethodExact, Count: len(ds), Min: ds[0], Max: ds[len(ds)-1], Mean: sum / time.Duration(len(ds)),
		P50: Quantile(ds, 0.50), P90: Quantile(ds, 0.90), P95: Quantile(ds, 0.95),
		P99: Quantile(ds, 0.99), P999: Quantile(ds, 0.999),
	}
}

// Quantile returns the nearest-rank q-quantile of sorted ds.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999999) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}
