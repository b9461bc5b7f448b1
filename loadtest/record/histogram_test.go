package record

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

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
	o := &Run{Meta: Meta{RunID: run, Scenario: "create", Shard: s, Began: at, Ended: at.Add(10 * time.Second)},
		Generator: Generator{Duration: 10 * time.Second, Sent: int64(len(results))}}
	rec, err := NewRecorder(tb.TempDir(), NewTally(at, 10*time.Second, false))
	require.NoError(tb, err)
	for i := range results {
		rec.Add(&HitResult{Result: results[i]})
	}
	require.NoError(tb, rec.Close(o))
	return o
}

// TestMergedPercentilesEqualOneRun: three shards each write their results
// file; `loadtest merge` reads them back. The merged tally's percentiles
// are those of one run over the same results (the same histogram), and
// within HDRPrecision of the exact nearest-rank percentiles. A merge that
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
	assert.Equal(t, one.Corrected.Summary(), merged.Corrected.Summary())
	assert.Equal(t, one.Raw.Summary(), merged.Raw.Summary())
	for name, op := range one.Ops {
		assert.Equal(t, op.Corrected.Summary(), merged.Ops[name].Corrected.Summary(), name)
	}
	assert.Equal(t, MethodHDR, merged.Corrected.Summary().Method)

	corrected, raw := make([]time.Duration, len(all)), make([]time.Duration, len(all))
	for i := range all {
		corrected[i], raw[i] = all[i].Corrected(), all[i].Latency
	}
	withinPrecision(t, "corrected", Summarize(corrected), merged.Corrected.Summary())
	withinPrecision(t, "raw", Summarize(raw), merged.Raw.Summary())
}

// withinPrecision checks that each percentile of got is within
// HDRPrecision of the exact one, and that count, min, max and mean are exact.
func withinPrecision(t *testing.T, name string, exact, got Latencies) {
	t.Helper()
	assert.Equal(t, exact.Count, got.Count, name)
	assert.Equal(t, exact.Min, got.Min, name)
	assert.Equal(t, exact.Max, got.Max, name)
	assert.Equal(t, exact.Mean, got.Mean, name)
	for _, p := range []struct {
		q          string
		want, have time.Duration
	}{{"p50", exact.P50, got.P50}, {"p90", exact.P90, got.P90}, {"p95", exact.P95, got.P95}, {"p99", exact.P99, got.P99}, {"p99.9", exact.P999, got.P999}} {
		assert.InDelta(t, float64(p.want), float64(p.have), HDRPrecision*float64(p.want), "%s %s: exact %s, histogram %s", name, p.q, p.want, p.have)
	}
}

// TestSmallRunPercentilesAreExact: up to ExactUpTo latencies, the report's
// percentiles are the exact nearest rank, and say so, in a run and in a
// merge of small shards; one more, and they come from the histogram.
func TestSmallRunPercentilesAreExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 2))
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	a, b := syntheticResults(rng, at, ExactUpTo/2, 0, 1000), syntheticResults(rng, at, ExactUpTo/2, 1, 1000)
	var h, ha, hb histogram
	var exact []time.Duration
	for i := range a {
		ha.add(a[i].Corrected())
		h.add(a[i].Corrected())
		exact = append(exact, a[i].Corrected())
	}
	for i := range b {
		hb.add(b[i].Corrected())
		h.add(b[i].Corrected())
		exact = append(exact, b[i].Corrected())
	}
	want := Summarize(exact)
	assert.Equal(t, want, h.Summary())
	ha.merge(&hb)
	assert.Equal(t, want, ha.Summary())

	h.add(time.Millisecond)
	exact = append(exact, time.Millisecond)
	got := h.Summary()
	assert.Equal(t, MethodHDR, got.Method)
	withinPrecision(t, "one past the exact limit", Summarize(exact), got)
}

// TestTallyStaysBounded: what a tally keeps does not grow with the number
// of results: the exact latencies are dropped past ExactUpTo, the plot's
// sample stays under 2·plotPoints, the charts under maxBuckets, and the
// error set under maxTrackedErrors however many distinct errors come.
func TestTallyStaysBounded(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 3))
	at := time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	tl := NewTally(at, time.Minute, false)
	rs := syntheticResults(rng, at, 200_000, 0, 500) // 400 s: past the minute the buckets were sized for
	for i := range rs {
		r := &rs[i]
		if i%3 == 0 {
			r.Expected = false
			r.Error = fmt.Sprintf("HTTP 500: error number %d", i) // every one distinct
		}
		tl.add(r)
	}
	tl.Close()
	assert.Equal(t, 200_000, tl.Requests())
	assert.Nil(t, tl.Corrected.exact)
	assert.LessOrEqual(t, len(tl.Plot.Points), 2*plotPoints)
	assert.GreaterOrEqual(t, len(tl.Plot.Points), plotPoints)
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
}
