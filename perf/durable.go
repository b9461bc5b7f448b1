package perf

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/prometheus/common/expfmt"
)

// Goals of the durable rows: with --state at 128 connections and more the
// payment rate stays within goalDurableRatio of its rate in memory (the
// client's connections share the fdatasyncs and the CPU is again the
// limit); at every count it reaches goalFloorRatio of what the disk's
// fdatasync floor allows for the payments each round served (the model,
// DurableResult.WriteRows).
const (
	goalDurableRatio      = 0.70
	goalDurableRatioConns = 128
	goalFloorRatio        = 0.90
)

// DurableConfig is the durable ratio: payment creation on the reference
// with --state (a fresh state directory each round) over the reference in
// memory, both measured by one client in alternating rounds, and over the
// rate the disk's fdatasync floor allows.
type DurableConfig struct {
	Client      Client
	Connections int      // the client's, for the report
	Reference   Launcher // started as is for memory, with --state DIR appended for the durable side; both with --metrics-addr
	Rounds      int
	Window      time.Duration // measured per server per round
	Warmup      time.Duration // sent to each fresh server before its window
	FloorWindow time.Duration // the fdatasync floor's loop, after each durable side
	Log         func(format string, args ...any)
}

// DurableResult holds, per round, the rates of each side and their ratio,
// the journal's bytes per payment, and the fdatasync-floor model: what the
// journal reported of the window (frames and records, from the reference's
// metrics) and the floor measured in the state's directory right after.
type DurableResult struct {
	Connections     int
	Memory, Durable Rounds // answers per second
	Ratio           Rounds // durable / memory, per round
	DiskBytes       Rounds // journal bytes per payment answered (warm-up and window)

	PerRound    Rounds // records per frame in the window: the payments one round served (one record each)
	FloorMicro  Rounds // the floor: one write of a mean frame and its fdatasync, alone, µs
	CommitMicro Rounds // a round's write and fdatasync under load, mean over the window, µs
	PeriodMicro Rounds // the window over its frames: the time from one round to the next, µs
	Model       Rounds // PerRound / floor: the payments per second the floor allows, per round
	ModelRatio  Rounds // Durable / Model, per round
}

// journalName is the journal's file name in a state directory
// (reference.JournalName; perf measures the binary and imports no part of
// it).
const journalName = "journal"

// Durable runs the rounds: memory first in odd rounds, durable first in
// even ones. Both sides serve their metrics (--metrics-addr), so that they
// pay for the same request counting; the durable side's are its journal's
// commits.
func Durable(ctx context.Context, cfg DurableConfig) (DurableResult, error) {
	res := DurableResult{Connections: cfg.Connections}
	cfg.Reference.Argv = append(slices.Clone(cfg.Reference.Argv), "--metrics-addr", "127.0.0.1:0")
	for round := range cfg.Rounds {
		sides := []bool{false, true} // durable?
		if round%2 == 1 {
			slices.Reverse(sides)
		}
		for _, durable := range sides {
			if !durable {
				r, err := measure(ctx, cfg.Reference, cfg.Client, cfg.Warmup, cfg.Window)
				if err != nil {
					return res, fmt.Errorf("round %d: %w", round+1, err)
				}
				res.Memory.Values = append(res.Memory.Values, r.PerSecond())
				logf(cfg.Log, "round %d: %s %.0f payments/s", round+1, "in memory", r.PerSecond())
				continue
			}
			d, err := measureDurable(ctx, cfg)
			if err != nil {
				return res, fmt.Errorf("round %d: %w", round+1, err)
			}
			res.add(d)
			logf(cfg.Log, "round %d: %s %.0f payments/s, %.0f B on disk per payment; %.1f payments a round, one every %.0f µs, "+
				"its write and fdatasync %.0f µs; the floor %.0f µs (%d B), so at most %.0f payments/s: %.2f of it",
				round+1, "with --state", d.rate, d.diskBytes, d.perRound, micros(d.period), micros(d.commit),
				micros(d.floor.Mean()), d.floor.Bytes, d.model(), d.rate/d.model())
		}
		res.Ratio.Values = append(res.Ratio.Values, res.Durable.Values[round]/res.Memory.Values[round])
	}
	return res, nil
}

// durableRound is what one durable side measured.
type durableRound struct {
	rate, diskBytes float64
	perRound        float64       // records per frame in the window
	commit, period  time.Duration // a round's write and fdatasync; the window over its frames
	floor           Floor
}

// model is the payments per second the floor allows: a round serves
// perRound payments and takes at least the floor.
func (d durableRound) model() float64 {
	if d.floor.Mean() <= 0 {
		return 0
	}
	return d.perRound / d.floor.Mean().Seconds()
}

func (r *DurableResult) add(d durableRound) {
	r.Durable.Values = append(r.Durable.Values, d.rate)
	r.DiskBytes.Values = append(r.DiskBytes.Values, d.diskBytes)
	r.PerRound.Values = append(r.PerRound.Values, d.perRound)
	r.FloorMicro.Values = append(r.FloorMicro.Values, micros(d.floor.Mean()))
	r.CommitMicro.Values = append(r.CommitMicro.Values, micros(d.commit))
	r.PeriodMicro.Values = append(r.PeriodMicro.Values, micros(d.period))
	r.Model.Values = append(r.Model.Values, d.model())
	r.ModelRatio.Values = append(r.ModelRatio.Values, d.rate/d.model())
}

// measureDurable measures the reference over a fresh state directory: the
// window's rate, its journal's frames and records in the window (scraped
// from its metrics before and after), the journal's length after the
// server stopped over every payment answered, and then the fdatasync floor
// in the same directory with frames of the journal's mean length.
func measureDurable(ctx context.Context, cfg DurableConfig) (durableRound, error) {
	var d durableRound
	dir, err := os.MkdirTemp("", "perf-state-")
	if err != nil {
		return d, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	l := cfg.Reference
	l.Name = "reference --state"
	l.Argv = append(slices.Clone(l.Argv), "--state", filepath.Join(dir, "state"))
	p, err := l.Start(ctx)
	if err != nil {
		return d, err
	}
	if p.Metrics == "" {
		_ = p.Stop()
		return d, fmt.Errorf("%s printed no metrics address: the model needs its journal's commits (reference --metrics-addr)", l.Name)
	}
	var answered int64
	var window Rate
	var before, after commits
	var began, ended time.Time
	if cfg.Warmup > 0 {
		var warm Rate
		warm, err = cfg.Client.Run(ctx, p.URL, cfg.Warmup)
		answered += warm.Requests
	}
	if err == nil {
		before, err = scrapeCommits(ctx, p.Metrics)
		began = time.Now()
	}
	if err == nil {
		window, err = cfg.Client.Run(ctx, p.URL, cfg.Window)
		answered += window.Requests
		ended = time.Now()
	}
	if err == nil {
		err = window.check(l.Name)
	}
	if err == nil {
		after, err = scrapeCommits(ctx, p.Metrics)
	}
	if serr := p.Stop(); err == nil {
		err = serr
	}
	if err != nil {
		return d, fmt.Errorf("%s: %w", l.Name, err)
	}
	frames := after.frames - before.frames
	if frames <= 0 {
		return d, fmt.Errorf("%s: its journal reported no commit in the window", l.Name)
	}
	used, err := journalUsed(filepath.Join(dir, "state", journalName))
	if err != nil {
		return d, err
	}
	d.rate, d.diskBytes = window.PerSecond(), float64(used)/float64(answered)
	d.perRound = (after.records - before.records) / frames
	d.commit = time.Duration((after.seconds - before.seconds) / frames * float64(time.Second))
	d.period = time.Duration(float64(ended.Sub(began)) / frames)
	d.floor, err = MeasureFloor(ctx, dir, int(float64(used)/after.frames), cfg.FloorWindow)
	if err != nil {
		return d, err
	}
	return d, nil
}

// commits is what the journal's metrics counted since the server started.
type commits struct {
	frames, records, seconds float64
}

// scrapeCommits reads the journal's commits from the reference's metrics
// (reference/httpapi/metrics.go): reference_journal_commit_records, whose
// count is the frames made durable and whose sum their records, and
// reference_journal_commit_seconds, whose sum is the time of their writes
// and fdatasyncs.
func scrapeCommits(ctx context.Context, url string) (commits, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return commits{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return commits{}, fmt.Errorf("metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // read whole below
	if resp.StatusCode != http.StatusOK {
		return commits{}, fmt.Errorf("metrics: %s answered %d", url, resp.StatusCode)
	}
	return parseCommits(resp.Body)
}

// parseCommits reads the journal's commits from metrics in the Prometheus
// text format; none (a server in memory, or before its first commit) is
// zero.
func parseCommits(r io.Reader) (commits, error) {
	families, err := new(expfmt.TextParser).TextToMetricFamilies(r)
	if err != nil {
		return commits{}, fmt.Errorf("metrics: %w", err)
	}
	var c commits
	if f, ok := families["reference_journal_commit_records"]; ok && len(f.GetMetric()) == 1 {
		h := f.GetMetric()[0].GetHistogram()
		c.frames, c.records = float64(h.GetSampleCount()), h.GetSampleSum()
	}
	if f, ok := families["reference_journal_commit_seconds"]; ok && len(f.GetMetric()) == 1 {
		c.seconds = f.GetMetric()[0].GetHistogram().GetSampleSum()
	}
	return c, nil
}

// journalUsed is the length of the journal at path up to its last non-zero
// byte: the rest is the zeros it preallocates for its next frames.
func journalUsed(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return int64(len(bytes.TrimRight(data, "\x00"))), nil
}

// WriteRows writes the durable ratio's rows of the table: --state over
// memory; --state over the fdatasync-floor model; bytes on disk.
//
// The model: with c closed-loop connections a payment is answered only
// after the round (one frame written and fdatasynced) that holds its
// record, and the journal runs one round at a time. If the journal reports
// F frames and R records in a window of T, a round served r = R/F payments
// (one record each) and the rate is R/T = r / (T/F). A round cannot be
// shorter than the floor f (one write of a mean frame and its fdatasync,
// alone, in the same directory), so the rate allowed for r payments a
// round is r/f, and rate / (r/f) = f / (T/F): how close the journal's
// rounds come to following one another at the disk's floor.
func (r DurableResult) WriteRows(w io.Writer) {
	lo, hi := r.Ratio.Range()
	goal, ok := "(none: see the model's row)", "-"
	if r.Connections >= goalDurableRatioConns {
		goal, ok = fmt.Sprintf("at least %.2f", goalDurableRatio), met(r.Ratio.Median() >= goalDurableRatio)
	}
	fmt.Fprintf(w, "| POST payment, reference --state / in memory, %d connections | %.2f | %d %s, %.2f to %.2f; median %.0f/s against %.0f/s; every payment fdatasynced before its answer | %s | %s |\n",
		r.Connections, r.Ratio.Median(), len(r.Ratio.Values), plural(len(r.Ratio.Values), "round"), lo, hi, r.Durable.Median(), r.Memory.Median(), goal, ok)
	mlo, mhi := r.ModelRatio.Range()
	fmt.Fprintf(w, "| POST payment, reference --state / its fdatasync-floor model, %d connections | %.2f | %d %s, %.2f to %.2f; median %.0f/s against a model of %.0f/s: %.1f payments a round (the journal's records per frame) over a floor of %.0f µs (one frame's write and fdatasync alone, in the state's directory); rounds under load: write and fdatasync %.0f µs, one every %.0f µs | at least %.2f | %s |\n",
		r.Connections, r.ModelRatio.Median(), len(r.ModelRatio.Values), plural(len(r.ModelRatio.Values), "round"), mlo, mhi, r.Durable.Median(), r.Model.Median(),
		r.PerRound.Median(), r.FloorMicro.Median(), r.CommitMicro.Median(), r.PeriodMicro.Median(), goalFloorRatio, met(r.ModelRatio.Median() >= goalFloorRatio))
	dlo, dhi := r.DiskBytes.Range()
	fmt.Fprintf(w, "| Bytes on disk per payment (--state), %d connections | %.0f B | the journal's frames over the payments answered, %.0f to %.0f B | (none) | - |\n",
		r.Connections, r.DiskBytes.Median(), dlo, dhi)
}
