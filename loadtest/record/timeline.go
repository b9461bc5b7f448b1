package record

import (
	"math"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
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
// time from its start, for the charts of the page and the progress line:
// what was sent and scheduled, the answers by status code, and the latency
// percentiles per bucket (from HDR histograms of one significant digit:
// each figure within 6.25 %). Its memory is bounded by maxBuckets,
// whatever the length of the run.
type Timeline struct {
	Start   time.Time
	Bucket  time.Duration // the width of a bucket
	Buckets []TimeBucket
}

// TimeBucket is what a timeline counts in one bucket.
type TimeBucket struct {
	Sent, Scheduled, Unexpected int
	Throttled                   int            // throttled answers (429, or 503 with Retry-After), by their end
	Codes                       map[string]int // answers by status code (noAnswer: none)
	Shards                      map[int]int    // sent per shard (merged runs)
	// Corrected and Raw are the latencies by scheduled and by send time;
	// nil while the bucket has none.
	Corrected, Raw *hdrhistogram.Histogram
}

// noAnswer is the status code of a request without an answer in the
// charts.
const noAnswer = "no answer"

// bucketDigits are the significant digits of the buckets' histograms.
const bucketDigits = 1

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
	b.Corrected = mergeInto(b.Corrected, o.Corrected)
	b.Raw = mergeInto(b.Raw, o.Raw)
}

// mergeInto adds the counts of o to h (made when nil) and returns h.
func mergeInto(h, o *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if o == nil {
		return h
	}
	if h == nil {
		h = newHistogram(bucketDigits)
	}
	h.Merge(o)
	return h
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
		sent.Raw = newHistogram(bucketDigits)
	}
	record(sent.Raw, r.Latency)
	sch := tl.slot(r.Scheduled)
	sch.Scheduled++
	if sch.Corrected == nil {
		sch.Corrected = newHistogram(bucketDigits)
	}
	record(sch.Corrected, r.Corrected())
	end := tl.slot(r.End())
	code := noAnswer
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

// Percentiles returns, per bucket, the q-th quantiles of the latencies in
// milliseconds (of's histogram of the bucket); NaN where a bucket holds
// none.
func (tl *Timeline) Percentiles(of func(*TimeBucket) *hdrhistogram.Histogram, qs ...float64) [][]float64 {
	out := make([][]float64, len(qs))
	for qi, q := range qs {
		out[qi] = make([]float64, len(tl.Buckets))
		for i := range tl.Buckets {
			out[qi][i] = math.NaN()
			if h := of(&tl.Buckets[i]); h != nil {
				out[qi][i] = float64(quantile(h, q)) / float64(time.Millisecond)
			}
		}
	}
	return out
}

// Recent is the corrected latencies of the requests scheduled from since
// on, as far as the buckets tell (those holding since and after it).
func (tl *Timeline) Recent(since time.Time) Latencies {
	from := max(0, int(since.Sub(tl.Start)/tl.Bucket))
	var h *hdrhistogram.Histogram
	for i := from; i < len(tl.Buckets); i++ {
		h = mergeInto(h, tl.Buckets[i].Corrected)
	}
	return summarize(h)
}

// PerSecond turns a count per bucket into a rate.
func (tl *Timeline) PerSecond(count func(*TimeBucket) int) []float64 {
	out := make([]float64, len(tl.Buckets))
	for i := range tl.Buckets {
		out[i] = float64(count(&tl.Buckets[i])) / tl.Bucket.Seconds()
	}
	return out
}
