package loadtest

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"time"
)

// FileHTML is the run's page: settings, verdict, thresholds, charts over
// time, the generator's self-check and the reconciliation.
const FileHTML = "report.html"

//go:embed htmlreport.tmpl
var htmlReportTemplate string

var htmlReport = template.Must(template.New("load").Funcs(template.FuncMap{
	"ms": func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
	},
	"pct": func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"num": func(v float64) string { return trimFloat(v) },
}).Parse(htmlReportTemplate))

type htmlLoadPage struct {
	Rep        *Report
	Settings   [][2]string
	Thresholds []htmlThreshold
	Latency    []htmlLatencyRow
	Ops        []htmlOp
	Codes      []htmlCount
	Charts     []chart
	Shards     []htmlShard
	Merged     bool
	Recon      *Reconciliation
	Bucket     string
}

type htmlThreshold struct {
	ThresholdResult
	Measured string
}

type htmlLatencyRow struct {
	Name string
	L    Latencies
}

type htmlOp struct {
	Name string
	Op
}

type htmlCount struct {
	Name  string
	Count int
}

type htmlShard struct {
	Index    int
	Requests int
	Rate     float64
	P99      time.Duration
}

// WriteHTML writes the page of a run (or of a merge of shards): one
// self-contained file whose charts are inline SVG drawn from the results,
// so that it fetches nothing and needs no script.
func WriteHTML(w io.Writer, o *Outcome, rep *Report) error {
	page := htmlLoadPage{Rep: rep, Recon: rep.Reconciliation, Merged: len(o.Meta.Merged) > 1}
	m := o.Meta
	add := func(k, v string) {
		if v != "" && v != "0" && v != "0s" {
			page.Settings = append(page.Settings, [2]string{k, v})
		}
	}
	add("run id", m.RunID)
	add("scenario", m.Scenario)
	add("target", m.Target)
	add("load", rep.Load)
	shards := ""
	for i, s := range rep.Shards {
		if i > 0 {
			shards += " "
		}
		shards += s.String()
	}
	add("shards", shards)
	add("began", m.Began.UTC().Format(time.RFC3339))
	add("ended", m.Ended.UTC().Format(time.RFC3339))
	add("wave size", strconv.Itoa(m.WaveSize))
	add("payment mix", m.PaymentMix)
	add("operation mix", m.OpMix)
	add("max workers", capText(m.MaxWorkers))
	add("max connections", capText(m.MaxConnections))
	add("request timeout", m.Timeout.String())
	add("drain", m.Drain.String())
	add("late after", m.LateAfter.String())
	add("reconciled", strconv.FormatBool(m.Reconciled))

	for _, t := range rep.Thresholds {
		ht := htmlThreshold{ThresholdResult: t, Measured: "not measured"}
		if !t.NotMeasured {
			ht.Measured = trimFloat(t.Actual) + metricUnits[t.Metric]
		}
		page.Thresholds = append(page.Thresholds, ht)
	}
	page.Latency = []htmlLatencyRow{{"corrected (from the scheduled send)", rep.Corrected}, {"raw (from the actual send)", rep.Raw}}
	for name, op := range rep.Ops {
		page.Ops = append(page.Ops, htmlOp{name, op})
	}
	sort.Slice(page.Ops, func(i, j int) bool { return page.Ops[i].Name < page.Ops[j].Name })
	for code, n := range rep.StatusCodes {
		page.Codes = append(page.Codes, htmlCount{code, n})
	}
	sort.Slice(page.Codes, func(i, j int) bool { return page.Codes[i].Name < page.Codes[j].Name })

	tl := newTimeline(o.Results)
	page.Bucket = trimFloat(tl.bucket.Seconds()) + " s"
	page.Charts = tl.charts(o.Results, page.Merged)
	if page.Merged {
		page.Shards = shardRows(o.Results, o.Meta.Merged)
	}

	var buf bytes.Buffer
	if err := htmlReport.Execute(&buf, page); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// timeline cuts a run into equal buckets of time from its first scheduled send.
type timeline struct {
	start  time.Time
	bucket time.Duration
	n      int
}

// maxBuckets bounds the points of a line.
const maxBuckets = 120

func newTimeline(results []Result) timeline {
	if len(results) == 0 {
		return timeline{bucket: time.Second, n: 1}
	}
	start, end := results[0].Scheduled, results[0].End()
	for i := range results {
		r := &results[i]
		if r.Scheduled.Before(start) {
			start = r.Scheduled
		}
		if r.Timestamp.Before(start) {
			start = r.Timestamp
		}
		if r.End().After(end) {
			end = r.End()
		}
	}
	span := end.Sub(start)
	bucket := time.Second
	for _, b := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
		5 * time.Minute, 15 * time.Minute, time.Hour} {
		bucket = b
		if span/b < maxBuckets {
			break
		}
	}
	return timeline{start: start, bucket: bucket, n: int(span/bucket) + 1}
}

func (tl timeline) at(t time.Time) int {
	i := int(t.Sub(tl.start) / tl.bucket)
	return min(max(i, 0), tl.n-1)
}

// perSecond turns counts per bucket into a rate.
func (tl timeline) perSecond(counts []int) []float64 {
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = float64(c) / tl.bucket.Seconds()
	}
	return out
}

// percentiles returns, per bucket, the q-th quantile (nearest rank) of the
// latencies in milliseconds; NaN where a bucket holds none.
func (tl timeline) percentiles(results []Result, at func(*Result) time.Time, lat func(*Result) time.Duration, qs ...float64) [][]float64 {
	buckets := make([][]time.Duration, tl.n)
	for i := range results {
		r := &results[i]
		b := tl.at(at(r))
		buckets[b] = append(buckets[b], lat(r))
	}
	out := make([][]float64, len(qs))
	for qi := range qs {
		out[qi] = make([]float64, tl.n)
	}
	for b, ds := range buckets {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		for qi, q := range qs {
			if len(ds) == 0 {
				out[qi][b] = math.NaN()
				continue
			}
			k := int(math.Ceil(q*float64(len(ds)))) - 1
			out[qi][b] = float64(ds[min(max(k, 0), len(ds)-1)]) / float64(time.Millisecond)
		}
	}
	return out
}

func (tl timeline) charts(results []Result, merged bool) []chart {
	secs := tl.bucket.Seconds()
	sent := make([]int, tl.n)
	scheduled := make([]int, tl.n)
	shardSent := map[int][]int{}
	codes := map[string][]int{}
	unexpected := make([]int, tl.n)
	for i := range results {
		r := &results[i]
		b := tl.at(r.Timestamp)
		sent[b]++
		scheduled[tl.at(r.Scheduled)]++
		if merged {
			if shardSent[r.Shard] == nil {
				shardSent[r.Shard] = make([]int, tl.n)
			}
			shardSent[r.Shard][b]++
		}
		code := strconv.Itoa(int(r.Code))
		if r.Code == 0 {
			code = "no answer"
		}
		if codes[code] == nil {
			codes[code] = make([]int, tl.n)
		}
		codes[code][tl.at(r.End())]++
		if !r.Allowed {
			unexpected[tl.at(r.End())]++
		}
	}

	rate := chart{ID: "chart-rate", Title: "Requests per second", YUnit: "requests/s", Bucket: secs}
	rate.Lines = append(rate.Lines,
		series{Name: "sent (achieved rate)", Color: palette[0], Y: tl.perSecond(sent)},
		series{Name: "scheduled (target rate)", Color: palette[1], Dash: true, Y: tl.perSecond(scheduled)})
	if merged {
		var idx []int
		for s := range shardSent {
			idx = append(idx, s)
		}
		sort.Ints(idx)
		for i, s := range idx {
			rate.Lines = append(rate.Lines, series{Name: fmt.Sprintf("sent by shard %d", s), Color: palette[(i+2)%len(palette)], Y: tl.perSecond(shardSent[s])})
		}
	}

	lat := chart{ID: "chart-latency", Title: "Latency percentiles", YUnit: "ms", Bucket: secs}
	qs := []float64{0.5, 0.95, 0.99}
	names := []string{"p50", "p95", "p99"}
	corr := tl.percentiles(results, func(r *Result) time.Time { return r.Scheduled }, (*Result).Corrected, qs...)
	raw := tl.percentiles(results, func(r *Result) time.Time { return r.Timestamp }, func(r *Result) time.Duration { return r.Latency }, qs...)
	for i, n := range names {
		lat.Lines = append(lat.Lines, series{Name: n + " corrected", Color: palette[i], Y: corr[i]})
	}
	for i, n := range names {
		lat.Lines = append(lat.Lines, series{Name: n + " raw", Color: palette[i], Dash: true, Y: raw[i]})
	}

	st := chart{ID: "chart-status", Title: "Answers per second by status code", YUnit: "answers/s", Bucket: secs}
	var keys []string
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		st.Lines = append(st.Lines, series{Name: k, Color: palette[i%len(palette)], Y: tl.perSecond(codes[k])})
	}
	st.Lines = append(st.Lines, series{Name: "unexpected (not allowed by the document, or no answer)", Color: "#cf222e", Dash: true, Y: tl.perSecond(unexpected)})
	return []chart{rate, lat, st}
}

// shardRows summarises each shard of a merged run.
func shardRows(results []Result, shards []Shard) []htmlShard {
	by := map[int][]time.Duration{}
	first, last := map[int]time.Time{}, map[int]time.Time{}
	for i := range results {
		r := &results[i]
		by[r.Shard] = append(by[r.Shard], r.Corrected())
		if f, ok := first[r.Shard]; !ok || r.Timestamp.Before(f) {
			first[r.Shard] = r.Timestamp
		}
		if r.Timestamp.After(last[r.Shard]) {
			last[r.Shard] = r.Timestamp
		}
	}
	var out []htmlShard
	for _, s := range shards {
		ds := by[s.Index]
		row := htmlShard{Index: s.Index, Requests: len(ds)}
		if secs := last[s.Index].Sub(first[s.Index]).Seconds(); secs > 0 {
			row.Rate = float64(len(ds)) / secs
		}
		row.P99 = Summarize(ds).P99
		out = append(out, row)
	}
	return out
}
