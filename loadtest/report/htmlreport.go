package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
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
	"n":   count,
	"dur": readable.Duration,
	"cap": readable.Cap,
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
	Recon      *verdict.Reconciliation
	Bucket     string
	// The verdict: the caveat of a pass, the classes of a failure with
	// their ids, and the faults (also marked on the charts).
	Caveat  string
	Classes []htmlClass
	// Listed are the classes whose ids violations.jsonl lists (every
	// class but the contract's, whose violations are answers).
	Listed   []htmlClass
	Failures []string // the failures the class lines do not already say
	Faults   []htmlFault
	// Throttled says how many answers the target throttled, by operation.
	Throttled string
}

type htmlThreshold struct {
	ThresholdResult
	Measured string
}

type htmlLatencyRow struct {
	Name string
	L    record.Latencies
}

type htmlOp struct {
	Name string
	record.OpStats
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

// writeHTML writes the page of a run (or of a merge of shards, HTML): one
// self-contained file whose charts are inline SVG drawn from the tally,
// so that it fetches nothing and needs no script.
func writeHTML(w io.Writer, run *record.Run, rep *Report) error {
	page := htmlLoadPage{Rep: rep, Recon: rep.Reconciliation, Merged: len(run.Meta.Merged) > 1}
	m := run.Meta
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
	add("ended (the attack)", m.Ended.UTC().Format(time.RFC3339))
	if m.ReconciledIn > 0 {
		add("reconciled in", readable.Duration(m.ReconciledIn))
	}
	add("wave size", strconv.Itoa(m.WaveSize))
	add("payment mix", m.PaymentMix)
	add("operation mix", m.OpMix)
	add("max workers", readable.Cap(m.MaxWorkers))
	add("max connections", readable.Cap(m.MaxConnections))
	add("request timeout", readable.Duration(m.Timeout))
	add("drain", readable.Duration(m.Drain))
	add("late after", readable.Duration(m.LateAfter))
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

	t := run.Tally
	tl := t.Timeline
	page.Bucket = trimFloat(tl.Bucket.Seconds()) + " s"
	page.Charts = timelineCharts(tl, page.Merged)
	page.verdictPage(rep, tl.Start)
	if rep.Throttled > 0 {
		page.Throttled = rep.throttledText()
	}
	if page.Merged {
		page.Shards = shardRows(t, run.Meta.Merged)
	}

	var buf bytes.Buffer
	if err := htmlReport.Execute(&buf, page); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// timelineCharts draws the charts of the page from the timeline tl: rates
// (per shard when merged), latency percentiles and answers by status code.
func timelineCharts(tl *record.Timeline, merged bool) []chart {
	secs := tl.Bucket.Seconds()
	rate := chart{ID: "chart-rate", Title: "Requests per second", YUnit: "requests/s", Bucket: secs}
	rate.Lines = append(rate.Lines,
		series{Name: "sent (achieved rate)", Color: palette[0], Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Sent })},
		series{Name: "scheduled (target rate)", Color: palette[1], Dash: true, Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Scheduled })})
	if merged {
		shards := map[int]bool{}
		for i := range tl.Buckets {
			for s := range tl.Buckets[i].Shards {
				shards[s] = true
			}
		}
		for i, s := range slices.Sorted(maps.Keys(shards)) {
			rate.Lines = append(rate.Lines, series{Name: fmt.Sprintf("sent by shard %d", s), Color: palette[(i+2)%len(palette)],
				Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Shards[s] })})
		}
	}

	lat := chart{ID: "chart-latency", Title: "Latency percentiles", YUnit: "ms", Bucket: secs}
	qs := []float64{0.5, 0.95, 0.99}
	names := []string{"p50", "p95", "p99"}
	corr := tl.Percentiles(func(b *record.TimeBucket) *hdrhistogram.Histogram { return b.Corrected }, qs...)
	raw := tl.Percentiles(func(b *record.TimeBucket) *hdrhistogram.Histogram { return b.Raw }, qs...)
	for i, n := range names {
		lat.Lines = append(lat.Lines, series{Name: n + " corrected", Color: palette[i], Y: corr[i]})
	}
	for i, n := range names {
		lat.Lines = append(lat.Lines, series{Name: n + " raw", Color: palette[i], Dash: true, Y: raw[i]})
	}

	st := chart{ID: "chart-status", Title: "Answers per second by status code", YUnit: "answers/s", Bucket: secs}
	codes := map[string]bool{}
	for i := range tl.Buckets {
		for c := range tl.Buckets[i].Codes {
			codes[c] = true
		}
	}
	for i, k := range slices.Sorted(maps.Keys(codes)) {
		st.Lines = append(st.Lines, series{Name: k, Color: palette[i%len(palette)], Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Codes[k] })})
	}
	st.Lines = append(st.Lines, series{Name: "unexpected (not allowed by the document, or no answer)", Color: "#cf222e", Dash: true,
		Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Unexpected })})
	st.Lines = append(st.Lines, series{Name: "throttled (429, or 503 with Retry-After: refused for the rate, not processed)", Color: "#9a6700", Dash: true,
		Y: tl.PerSecond(func(b *record.TimeBucket) int { return b.Throttled })})
	return []chart{rate, lat, st}
}

// shardRows summarises each shard of a merged run.
func shardRows(t *record.Tally, shards []record.Shard) []htmlShard {
	var out []htmlShard
	for _, s := range shards {
		row := htmlShard{Index: s.Index}
		if st := t.Shards[s.Index]; st != nil {
			row.Requests = st.Requests
			if secs := st.Last.Sub(st.First).Seconds(); secs > 0 {
				row.Rate = float64(st.Requests) / secs
			}
			row.P99 = st.Corrected().P99
		}
		out = append(out, row)
	}
	return out
}
