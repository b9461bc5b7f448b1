package record

import (
	"fmt"
	"slices"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentile methods, as a Latencies says which one gave its figures.
const (
	// MethodExact is the nearest rank over every latency, kept while a run
	// (or an operation of it) has at most ExactUpTo of them.
	MethodExact = "exact"
	// MethodHDR is an HDR histogram of HDRDigits significant digits: each
	// percentile is within HDRPrecision of the exact nearest-rank value
	// (the bucket holding it is that narrow), and histograms of shards
	// merge exactly (their counts add).
	MethodHDR = "hdr"
)

// The latency histograms' parameters. 3 significant digits in nanoseconds
// from 1 ns to a day: about 300 KiB of counts per histogram, whatever the
// number of requests.
const (
	ExactUpTo    = 10_000
	HDRDigits    = 3
	HDRPrecision = 0.001 // relative: 0.1 %
	hdrHighest   = int64(24 * time.Hour)
)

// PercentileMethods says in words how a report's percentiles were computed.
func PercentileMethods() string {
	return fmt.Sprintf("exact nearest rank up to %d latencies; past that an HDR histogram of %d significant digits (each percentile within %.1f%% of the exact value; min, max and mean exact)",
		ExactUpTo, HDRDigits, 100*HDRPrecision)
}

// histogram gathers latencies in memory that does not grow with their
// number: every value while there are at most ExactUpTo (the exact
// nearest-rank percentiles of small runs), and an HDR histogram always,
// which merges across shards without loss. Count, min, max and sum are exact.
type histogram struct {
	hdr   *hdrhistogram.Histogram // nil until the first value
	exact []time.Duration         // nil once past ExactUpTo
	n     int64
	sum   time.Duration
	min   time.Duration
	max   time.Duration
}

func (h *histogram) add(d time.Duration) {
	if h.hdr == nil {
		h.hdr = hdrhistogram.New(1, hdrHighest, HDRDigits)
	}
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if h.n == 0 || d > h.max {
		h.max = d
	}
	h.n++
	h.sum += d
	if h.n <= ExactUpTo {
		h.exact = append(h.exact, d)
	} else {
		h.exact = nil
	}
	// Out of range (negative, or above a day) is recorded at the bound;
	// min and max stay exact.
	_ = h.hdr.RecordValue(min(max(int64(d), 1), hdrHighest))
}

// merge adds o's latencies to h.
func (h *histogram) merge(o *histogram) {
	if o == nil || o.n == 0 {
		return
	}
	if h.hdr == nil {
		h.hdr = hdrhistogram.New(1, hdrHighest, HDRDigits)
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	if h.n+o.n <= ExactUpTo {
		h.exact = append(h.exact, o.exact...)
	} else {
		h.exact = nil
	}
	h.n += o.n
	h.sum += o.sum
	h.hdr.Merge(o.hdr)
}

// Summary is the Latencies of h: exact while h holds every value, from
// the HDR histogram past that.
func (h *histogram) Summary() Latencies {
	if h == nil || h.n == 0 {
		return Latencies{}
	}
	if h.exact != nil && int64(len(h.exact)) == h.n {
		l := Summarize(slices.Clone(h.exact))
		l.Method = MethodExact
		return l
	}
	l := Latencies{Count: int(h.n), Min: h.min, Max: h.max, Mean: h.sum / time.Duration(h.n), Method: MethodHDR}
	qs := []float64{0.50, 0.90, 0.95, 0.99, 0.999}
	vs := h.quantiles(qs)
	l.P50, l.P90, l.P95, l.P99, l.P999 = vs[0], vs[1], vs[2], vs[3], vs[4]
	return l
}

// quantiles returns the nearest-rank quantiles qs (ascending) from the HDR
// histogram: the highest value equivalent to the bucket holding rank
// ⌈q·n⌉, within the exact min and max. (The library's own ValueAtQuantile
// rounds the rank to the nearest instead, which is not nearest rank.)
func (h *histogram) quantiles(qs []float64) []time.Duration {
	out := make([]time.Duration, len(qs))
	n := h.hdr.TotalCount()
	var seen int64
	i := 0
	for _, b := range h.hdr.Distribution() {
		seen += b.Count
		for i < len(qs) && seen >= rankOf(qs[i], n) {
			out[i] = min(max(time.Duration(b.To), h.min), h.max)
			i++
		}
		if i == len(qs) {
			break
		}
	}
	for ; i < len(qs); i++ {
		out[i] = h.max
	}
	return out
}

// rankOf is the nearest rank (1-based) of quantile q among n values.
func rankOf(q float64, n int64) int64 {
	return max(1, min(n, int64(q*float64(n)+0.999999999)))
}

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
