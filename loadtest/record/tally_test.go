package record

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// syntheticResults returns n results of shard s sent at rate per second
// from at, with long-tailed latencies (log-normal around 2 ms, a slow
// hundredth up to a second) and a little lateness, as a run would record.
func syntheticResults(rng *rand.Rand, at time.Time, n, shard int, rate float64) []Result {
	out := make([]Result, n)
	for i := range out {
		lat := time.Duration(2e6 * math.Exp(rng.NormFloat64()*0.6))
		if rng.IntN(100) == 0 {
			lat += time.Duration(rng.Int64N(int64(time.Second)))
		}
		scheduled := at.Add(time.Duration(float64(i) / rate * float64(time.Second)))
		sent := scheduled.Add(time.Duration(rng.Int64N(int64(200 * time.Microsecond))))
		op := OpCreate
		if i%4 == 0 {
			op = OpStatus
		}
		out[i] = Result{Result: vegeta.Result{Attack: op, Seq: uint64(i), Code: 200, Timestamp: sent, Latency: lat,
			Method: "POST", URL: "http://127.0.0.1/client/v2/payment"}, Scheduled: scheduled, Op: op, Expected: true, Allowed: true, Shard: shard}
	}
	return out
}

// shardRun records results as shard s of run, from at, into a directory
// of tb.
func shardRun(tb testing.TB, run string, s Shard, at time.Time, results []Result) *Run {
	tb.Helper()
	o := &Run{Meta: Meta{Settings: Settings{RunID: run, Scenario: "create", Shard: s, Load: pacing.LoadProfile{Duration: 10 * time.Second}}, Began: at, Ended: at.Add(10 * time.Second)},
		Generator: Generator{Sent: int64(len(results))}}
	rec, err := NewRecorder(tb.TempDir(), NewTally(at, 10*time.Second, 10*time.Millisecond, false))
	require.NoError(tb, err)
	for i := range results {
		rec.Add(&HitResult{Result: results[i]})
	}
	require.NoError(tb, rec.Close(o))
	return o
}

// TestMergedPercentilesEqualOneRun: three shards each write their results
// file; `loadtest merge` reads them back. The merged tally's percentiles
// are those of one run over the same results (the same histograms), and
// within hdrPrecision of the exact nearest-rank percentiles. A merge that
// combined the shards' percentiles (averaging them, or taking the worst)
// instead of their distributions fails the first comparison.
func TestMergedPercentilesEqualOneRun(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 1))
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	var all []Result
	var outs []*Run
	root := t.TempDir()
	// The shards differ (one slower than the others), so that a merge of
	// their percentiles would not land on the distribution's by chance.
	for i, n := range []int{14_000, 9_000, 12_000} {
		rs := syntheticResults(rng, at, n, i, 1500)
		if i == 1 {
			for j := range rs {
				rs[j].Latency *= 3
			}
		}
		all = append(all, rs...)
		o := shardRun(t, "merge21", Shard{Index: i, Count: 3}, at, rs)
		dir := filepath.Join(root, fmt.Sprint(i))
		require.NoError(t, WriteDir(dir, o))
		read, err := ReadDir(dir)
		require.NoError(t, err)
		outs = append(outs, read)
	}
	m, err := Merge(outs, false)
	require.NoError(t, err)
	merged, one := m.Tally, shardRun(t, "merge21", SingleShard, at, all).Tally

	require.Equal(t, len(all), merged.Requests())
	assert.Equal(t, one.Corrected(), merged.Corrected())
	assert.Equal(t, one.Raw(), merged.Raw())
	assert.Equal(t, one.Lateness(), merged.Lateness())
	for name, op := range one.Ops {
		assert.Equal(t, op.Stats(), merged.Ops[name].Stats(), name)
	}

	corrected, raw := make([]time.Duration, len(all)), make([]time.Duration, len(all))
	for i := range all {
		corrected[i], raw[i] = all[i].Corrected(), all[i].Latency
	}
	withinPrecision(t, "corrected", exactly(corrected), merged.Corrected())
	withinPrecision(t, "raw", exactly(raw), merged.Raw())
}

// hdrPrecision is how far an HDR histogram of hdrDigits significant
// digits may put a figure from the exact one, relatively.
const hdrPrecision = 0.001

// exactly is the exact nearest-rank summary of ds, which it sorts.
func exactly(ds []time.Duration) Latencies {
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	at := func(q float64) time.Duration { return ds[int(math.Ceil(q*float64(len(ds))))-1] }
	return Latencies{Count: len(ds), Min: ds[0], Mean: sum / time.Duration(len(ds)), P50: at(0.5), P90: at(0.9), P95: at(0.95),
		P99: at(0.99), P999: at(0.999), Max: ds[len(ds)-1]}
}

// withinPrecision checks that each figure of got is within hdrPrecision
// of the exact one, and that the count is exact.
func withinPrecision(t *testing.T, name string, exact, got Latencies) {
	t.Helper()
	assert.Equal(t, exact.Count, got.Count, name)
	for _, p := range []struct {
		q          string
		want, have time.Duration
	}{{"min", exact.Min, got.Min}, {"mean", exact.Mean, got.Mean}, {"p50", exact.P50, got.P50}, {"p90", exact.P90, got.P90}, {"p95", exact.P95, got.P95},
		{"p99", exact.P99, got.P99}, {"p99.9", exact.P999, got.P999}, {"max", exact.Max, got.Max}} {
		assert.InDelta(t, float64(p.want), float64(p.have), hdrPrecision*float64(p.want), "%s %s: exact %s, histogram %s", name, p.q, p.want, p.have)
	}
}

// TestPercentilesAreNearestRank: the rank of each percentile is ⌈q·n⌉, as
// the exact nearest rank's, for small counts too (where the library's own
// rounding of the rank would take the p99.9 of 600 latencies one below the
// largest).
func TestPercentilesAreNearestRank(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 10, 599, 600, 1001} {
		h := newHistogram(hdrDigits)
		ds := make([]time.Duration, n)
		for i := range ds {
			ds[i] = time.Duration(i+1) * time.Millisecond // distinct buckets
			record(h, ds[i])
		}
		withinPrecision(t, fmt.Sprint(n, " latencies"), exactly(ds), summarize(h))
	}
}

// TestLatenessIsCountedForEverySend: the generator's lateness is in the
// tally for every send, not only past lateAfter: a run whose sends were
// all up to 10 ms late has no send later than 10 ms, but its lateness says
// how late they were.
func TestLatenessIsCountedForEverySend(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	tl := NewTally(at, time.Second, 10*time.Millisecond, false)
	lates := make([]time.Duration, 1000)
	for i := range lates {
		lates[i] = time.Duration(1+i%10) * time.Millisecond
		sched := at.Add(time.Duration(i) * time.Millisecond)
		tl.add(&Result{Result: vegeta.Result{Timestamp: sched.Add(lates[i]), Latency: time.Millisecond}, Scheduled: sched, Op: OpCreate})
	}
	assert.Zero(t, tl.Late)
	withinPrecision(t, "lateness", exactly(lates[:]), tl.Lateness())
	tl.add(&Result{Result: vegeta.Result{Timestamp: at.Add(11 * time.Millisecond)}, Scheduled: at, Op: OpCreate})
	assert.Equal(t, 1, tl.Late)
}

// TestTallyStaysBounded: what a tally keeps does not grow with the number
// of results: the charts stay under maxBuckets, and the error set under
// maxTrackedErrors however many distinct errors come.
func TestTallyStaysBounded(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 3))
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	tl := NewTally(at, time.Minute, 10*time.Millisecond, false)
	rs := syntheticResults(rng, at, 200_000, 0, 500) // 400 s: past the minute the buckets were sized for
	for i := range rs {
		r := &rs[i]
		if i%3 == 0 {
			r.Expected = false
			r.Error = fmt.Sprintf("HTTP 500: error number %d", i) // every one distinct
		}
		tl.add(r)
	}
	assert.Equal(t, 200_000, tl.Requests())
	assert.LessOrEqual(t, len(tl.Timeline.Buckets), maxBuckets)
	assert.Greater(t, tl.Timeline.Bucket, time.Second, "the buckets widened")
	assert.Len(t, tl.Errors.entries, maxTrackedErrors)
	set := tl.Errors.Set()
	require.Len(t, set, maxErrorEntries+1)
	assert.Equal(t, 200_000/3+1-maxTrackedErrors, set[maxErrorEntries].Count, "the errors past the tracked ones are counted")
	sent := 0
	for i := range tl.Timeline.Buckets {
		sent += tl.Timeline.Buckets[i].Sent
	}
	assert.Equal(t, 200_000, sent, "widening the buckets loses no result")
	assert.Equal(t, map[string]int{"200": 200_000}, tl.StatusCodes())
}
