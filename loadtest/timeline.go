package loadtest

import (
	"math"
	"math/bits"
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

// timeline counts a run's results in at most maxBuckets equal buckets of
// time from its start, for the charts of the page: what was sent and
// scheduled, the answers by status code, and the latency percentiles per
// bucket (from a coarse histogram, see logHist). Its memory is bounded by
// maxBuckets, whatever the length of the run.
type timeline struct {
	start  time.Time
	bucket time.Duration
	b      []timeBucket
}

type timeBucket struct {
	sent, scheduled, unexpected int
	codes                       map[string]int // answers by status code ("no answer": none)
	shards                      map[int]int    // sent per shard (merged runs)
	corrected, raw              *logHist       // by scheduled and by send time
}

// newTimeline starts a timeline at start whose buckets suit a run of
// about span.
func newTimeline(start time.Time, span time.Duration) *timeline {
	tl := &timeline{start: start, bucket: bucketWidths[len(bucketWidths)-1]}
	for _, w := range bucketWidths {
		if span/w < maxBuckets {
			tl.bucket = w
			break
		}
	}
	return tl
}

// slot returns the bucket of time t, widening the buckets when t lies
// past the last one maxBuckets allow.
func (tl *timeline) slot(t time.Time) *timeBucket {
	i := max(0, int(t.Sub(tl.start)/tl.bucket))
	for i >= maxBuckets && tl.widen() {
		i = max(0, int(t.Sub(tl.start)/tl.bucket))
	}
	i = min(i, maxBuckets-1)
	for len(tl.b) <= i {
		tl.b = append(tl.b, timeBucket{})
	}
	return &tl.b[i]
}

// widen moves to the next width of bucketWidths, merging the buckets.
func (tl *timeline) widen() bool {
	k := 0
	for k < len(bucketWidths) && bucketWidths[k] != tl.bucket {
		k++
	}
	if k+1 >= len(bucketWidths) {
		return false
	}
	w := bucketWidths[k+1]
	f := int(w / tl.bucket)
	var merged []timeBucket
	for i := range tl.b {
		j := i / f
		if j == len(merged) {
			merged = append(merged, timeBucket{})
		}
		merged[j].merge(&tl.b[i])
	}
	tl.bucket, tl.b = w, merged
	return true
}

func (b *timeBucket) merge(o *timeBucket) {
	b.sent += o.sent
	b.scheduled += o.scheduled
	b.unexpected += o.unexpected
	for k, n := range o.codes {
		if b.codes == nil {
			b.codes = map[string]int{}
		}
		b.codes[k] += n
	}
	for k, n := range o.shards {
		if b.shards == nil {
			b.shards = map[int]int{}
		}
		b.shards[k] += n
	}
	b.corrected = b.corrected.merge(o.corrected)
	b.raw = b.raw.merge(o.raw)
}

// add counts result r.
func (tl *timeline) add(r *Result, merged bool) {
	sent := tl.slot(r.Timestamp)
	sent.sent++
	if merged {
		if sent.shards == nil {
			sent.shards = map[int]int{}
		}
		sent.shards[r.Shard]++
	}
	if sent.raw == nil {
		sent.raw = &logHist{}
	}
	sent.raw.add(r.Latency)
	sch := tl.slot(r.Scheduled)
	sch.scheduled++
	if sch.corrected == nil {
		sch.corrected = &logHist{}
	}
	sch.corrected.add(r.Corrected())
	end := tl.slot(r.End())
	code := "no answer"
	if r.Code != 0 {
		code = itoa(int(r.Code))
	}
	if end.codes == nil {
		end.codes = map[string]int{}
	}
	end.codes[code]++
	if !r.Allowed {
		end.unexpected++
	}
}

func itoa(n int) string {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 || i == 0 {
			return string(b[i:])
		}
	}
}

// Per doubling, logHist has logSteps buckets: each at most 6.25 % wide.
const (
	logSteps   = 16
	logBuckets = 48 * logSteps // up to 2^48 ns, about 3 days
)

// logHist is a coarse latency histogram for the charts' buckets: 16
// buckets per doubling of the latency (each at most 6.25 % wide), 3 KiB.
type logHist struct {
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

func (h *logHist) add(d time.Duration) {
	h.n++
	h.counts[logIndex(d)]++
}

func (h *logHist) merge(o *logHist) *logHist {
	if o == nil {
		return h
	}
	if h == nil {
		h = &logHist{}
	}
	h.n += o.n
	for i, c := range o.counts {
		h.counts[i] += c
	}
	return h
}

// quantile is the nearest-rank q-quantile in milliseconds; NaN when h is empty.
func (h *logHist) quantile(q float64) float64 {
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
