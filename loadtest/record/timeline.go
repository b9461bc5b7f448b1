package record

import (
	"math"
	"math/bits"
	"strconv"
	"time"
)

// maxBuckets bounds the points of a line of the page's charts.
const maxBuckets = 120

// bucketWidths are the widths a timeline's buckets may take, each a
// multiple of the one before, so that a timeline that outgrows maxBuckets
// merges its buckets into wider ones without going back to the results.
var bucketWidths = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, time.Second,
	5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
	15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// Timeline counts a run's results in at most maxBuckets equal buckets of
// time from its start, for the charts of the page: what was sent and
// scheduled, the answers by status code, and the latency percentiles per
// bucket (from a coarse histogram, see logHist). Its memory is bounded by
// maxBuckets, whatever the length of the run.
type Timeline struct {
	Start   time.Time
	Bucket  time.Duration // the width of a bucket
	Buckets []TimeBucket
}

// TimeBucket is what a timeline counts in one bucket.
type TimeBucket struct {
	Sent, Scheduled, Unexpected int
	Throttled                   int            // throttled answers (429, or 503 with Retry-After), by their end
	Codes                       map[string]int // answers by status code ("no answer": none)
	Shards                      map[int]int    // sent per shard (merged runs)
	Corrected, Raw              *LogHist       // by scheduled and by send time
}

// newTimeline starts a timeline at start whose buckets suit a run of
// about span.
func newTimeline(start time.Time, span time.Duration) *Timeline {
	tl := &Timeline{Start: start, Bucket: bucketWidths[len(bucketWidths)-1]}
	for _, w := range bucketWidths {
		if span/w < maxBuckets {
			tl.Bucket = w
			break
		}
	}
	return tl
}

// slot returns the bucket of time t, widening the buckets when t lies
// past the last one maxBuckets allow.
func (tl *Timeline) slot(t time.Time) *TimeBucket {
	i := max(0, int(t.Sub(tl.Start)/tl.Bucket))
	for i >= maxBuckets && tl.widen() {
		i = max(0, int(t.Sub(tl.Start)/tl.Bucket))
	}
	i = min(i, maxBuckets-1)
	for len(tl.Buckets) <= i {
		tl.Buckets = append(tl.Buckets, TimeBucket{})
	}
	return &tl.Buckets[i]
}

// widen moves to the next width of bucketWidths, merging the buckets.
func (tl *Timeline) widen() bool {
	k := 0
	for k < len(bucketWidths) && bucketWidths[k] != tl.Bucket {
		k++
	}
	if k+1 >= len(bucketWidths) {
		return false
	}
	w := bucketWidths[k+1]
	f := int(w / tl.Bucket)
	var merged []TimeBucket
	for i := range tl.Buckets {
		j := i / f
		if j == len(merged) {
			merged = append(merged, TimeBucket{})
		}
		merged[j].merge(&tl.Buckets[i])
	}
	tl.Bucket, tl.Buckets = w, merged
	return true
}

func (b *TimeBucket) merge(o *TimeBucket) {
	b.Sent += o.Sent
	b.Scheduled += o.Scheduled
	b.Unexpected += o.Unexpected
	b.Throttled += o.Throttled
	for k, n := range o.Codes {
		if b.Codes == nil {
			b.Codes = map[string]int{}
		}
		b.Codes[k] += n
	}
	for k, n := range o.Shards {
		if b.Shards == nil {
			b.Shards = map[int]int{}
		}
		b.Shards[k] += n
	}
	b.Corrected = b.Corrected.merge(o.Corrected)
	b.Raw = b.Raw.merge(o.Raw)
}

// add counts result r.
func (tl *Timeline) add(r *Result, merged bool) {
	sent := tl.slot(r.Timestamp)
	sent.Sent++
	if merged {
		if sent.Shards == nil {
			sent.Shards = map[int]int{}
		}
		sent.Shards[r.Shard]++
	}
	if sent.Raw == nil {
		sent.Raw = &LogHist{}
	}
	sent.Raw.add(r.Latency)
	sch := tl.slot(r.Scheduled)
	sch.Scheduled++
	if sch.Corrected == nil {
		sch.Corrected = &LogHist{}
	}
	sch.Corrected.add(r.Corrected())
	end := tl.slot(r.End())
	code := "no answer"
	if r.Code != 0 {
		code = strconv.Itoa(int(r.Code))
	}
	if end.Codes == nil {
		end.Codes = map[string]int{}
	}
	end.Codes[code]++
	if !r.Allowed {
		end.Unexpected++
	}
	if r.Throttled {
		end.Throttled++
	}
}

// Per doubling, logHist has logSteps buckets: each at most 6.25 % wide.
const (
	logSteps   = 16
	logBuckets = 48 * logSteps // up to 2^48 ns, about 3 days
)

// LogHist is a coarse latency histogram for the charts' buckets: 16
// buckets per doubling of the latency (each at most 6.25 % wide), 3 KiB.
type LogHist struct {
	n      uint32
	counts [logBuckets]uint32
}

func logIndex(d time.Duration) int {
	if d <= 1 {
		return 0
	}
	// The position of the top bit, then the next four bits: 16 linear
	// steps per doubling, as an HDR histogram of one digit.
	top := 63 - bits.LeadingZeros64(uint64(d))
	frac := 0
	if top >= 4 {
		frac = int((uint64(d) >> (top - 4)) & 15)
	} else {
		frac = int((uint64(d) << (4 - top)) & 15)
	}
	return min(top*logSteps+frac, logBuckets-1)
}

// logValue is the upper bound of bucket i.
func logValue(i int) time.Duration {
	top, frac := i/logSteps, i%logSteps
	return time.Duration(math.Ldexp(1+float64(frac+1)/logSteps, top))
}

func (h *LogHist) add(d time.Duration) {
	h.n++
	h.counts[logIndex(d)]++
}

func (h *LogHist) merge(o *LogHist) *LogHist {
	if o == nil {
		return h
	}
	if h == nil {
		h = &LogHist{}
	}
	h.n += o.n
	for i, c := range o.counts {
		h.counts[i] += c
	}
	return h
}

// Quantile is the nearest-rank q-quantile in milliseconds; NaN when h is empty.
func (h *LogHist) Quantile(q float64) float64 {
	if h == nil || h.n == 0 {
		return math.NaN()
	}
	rank := rankOf(q, int64(h.n))
	var seen int64
	for i, c := range h.counts {
		seen += int64(c)
		if seen >= rank {
			return float64(logValue(i)) / float64(time.Millisecond)
		}
	}
	return math.NaN()
}

// Percentiles returns, per bucket, the q-th quantiles of the latencies in
// milliseconds (of the bucket's coarse histogram); NaN where a bucket holds
// none.
func (tl *Timeline) Percentiles(of func(*TimeBucket) *LogHist, qs ...float64) [][]float64 {
	out := make([][]float64, len(qs))
	for qi, q := range qs {
		out[qi] = make([]float64, len(tl.Buckets))
		for i := range tl.Buckets {
			out[qi][i] = of(&tl.Buckets[i]).Quantile(q)
		}
	}
	return out
}

// PerSecond turns a count per bucket into a rate.
func (tl *Timeline) PerSecond(count func(*TimeBucket) int) []float64 {
	out := make([]float64, len(tl.Buckets))
	for i := range tl.Buckets {
		out[i] = float64(count(&tl.Buckets[i])) / tl.Bucket.Seconds()
	}
	return out
}
