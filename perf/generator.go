package perf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The open-model criteria (docs/performance.md): a rate is clean when the p99 latency
// from the send is at most cleanP99 and at most cleanLatePct of the sends
// are more than lateAfter behind their schedule.
const (
	cleanP99     = 50 * time.Millisecond
	cleanLatePct = 5.0
	lateAfter    = 10 * time.Millisecond // the load tester's default --late
)

// GeneratorConfig is the comparison of our load tester with the vegeta CLI
// against the same cheap target (TargetHandler, served by Target).
type GeneratorConfig struct {
	Target   Launcher // the cheap target, started once for the whole comparison
	Loadtest string   // our load tester's binary (cmd/loadtest)
	// Vegeta is the vegeta CLI; "" when it is not installed, in which case
	// only our load tester is measured and Log says so.
	Vegeta    string
	Rates     []float64     // the open-model rates tried, requests per second
	Reference float64       // the rate whose latency and lateness the table gives (5,000/s)
	Workers   int           // the worker cap of the max-rate runs (64)
	Duration  time.Duration // of each run
	Rounds    int           // each round runs both generators at every rate, in alternating order
	Dir       string        // scratch directory for the generators' output
	Log       func(format string, args ...any)
}

// GeneratorRun is what one run of one generator measured.
type GeneratorRun struct {
	Rate     float64 // requested; 0 for a max-rate run
	Sent     int64
	Achieved float64 // sends per second of sending time
	// P99Send runs from the actual send; P99Corrected from the scheduled
	// send (for a max-rate run, which has no schedule, the same as P99Send).
	P99Send, P99Corrected time.Duration
	LatePct               float64       // sends more than lateAfter behind their schedule
	CPU                   time.Duration // user + system time of the generator's process
	PeakRSS               int64         // the generator process's peak resident memory (VmHWM), bytes
	// EndRSS is its resident memory (VmRSS) at the end of the attack: the
	// median of what was read in its last endWindow.
	EndRSS int64
}

// CPUPerRequest is the generator's CPU time per request sent.
func (r GeneratorRun) CPUPerRequest() time.Duration {
	if r.Sent == 0 {
		return 0
	}
	return r.CPU / time.Duration(r.Sent)
}

// late is the number of late sends.
func (r GeneratorRun) late() int64 { return int64(math.Round(r.LatePct * float64(r.Sent) / 100)) }

// Clean reports whether the run meets the open-model criteria.
func (r GeneratorRun) Clean() bool {
	return r.Sent > 0 && r.P99Send <= cleanP99 && r.LatePct <= cleanLatePct
}

// GeneratorFigures are one generator's runs, per rate and at max rate.
type GeneratorFigures struct {
	Name    string
	ByRate  map[float64][]GeneratorRun // one run per round
	MaxRate []GeneratorRun
}

// HighestClean is the highest rate clean in most rounds (0 when none is).
func (f GeneratorFigures) HighestClean() float64 {
	best := 0.0
	for rate, runs := range f.ByRate {
		clean := 0
		for _, r := range runs {
			if r.Clean() {
				clean++
			}
		}
		if 2*clean > len(runs) && rate > best {
			best = rate
		}
	}
	return best
}

// At returns the medians over the rounds at rate: p99 corrected, p99 from
// the send and the late percentage.
func (f GeneratorFigures) At(rate float64) (corrected, send time.Duration, latePct float64) {
	runs := f.ByRate[rate]
	return time.Duration(medianOf(runs, func(r GeneratorRun) float64 { return float64(r.P99Corrected) })),
		time.Duration(medianOf(runs, func(r GeneratorRun) float64 { return float64(r.P99Send) })),
		medianOf(runs, func(r GeneratorRun) float64 { return r.LatePct })
}

// PeakRSSAt is the median over the rounds of the generator process's peak
// resident memory (VmHWM) at rate; 0 when it did not run at rate.
func (f GeneratorFigures) PeakRSSAt(rate float64) int64 {
	return int64(medianOf(f.ByRate[rate], func(r GeneratorRun) float64 { return float64(r.PeakRSS) }))
}

// peakRates are the rates of the peak-memory rows (issue 38: at most
// goalPeakRatio × vegeta's at each).
var peakRates = []float64{5000, 10000}

// goalPeakRatio is the goal of the load tester's peak resident memory over
// vegeta's at the same rate, in the same run.
const goalPeakRatio = 1.5

// MaxRateAchieved is the median rate of the max-rate runs.
func (f GeneratorFigures) MaxRateAchieved() float64 {
	return medianOf(f.MaxRate, func(r GeneratorRun) float64 { return r.Achieved })
}

// CPUPerRequest is the median CPU per request of the max-rate runs.
func (f GeneratorFigures) CPUPerRequest() time.Duration {
	return time.Duration(medianOf(f.MaxRate, func(r GeneratorRun) float64 { return float64(r.CPUPerRequest()) }))
}

// medianOf is the median of f over runs.
func medianOf(runs []GeneratorRun, f func(GeneratorRun) float64) float64 {
	r := Rounds{}
	for _, run := range runs {
		r.Values = append(r.Values, f(run))
	}
	return r.Median()
}

// GeneratorResult is the comparison: our load tester, and vegeta when it
// was installed (nil otherwise).
type GeneratorResult struct {
	Reference float64 // the rate of the latency rows
	Workers   int
	Ours      GeneratorFigures
	Vegeta    *GeneratorFigures
}

// Generators runs the comparison: the target is started once; each round
// runs both generators at every rate, then at max rate with cfg.Workers
// workers, the generator that goes first alternating from round to round,
// so that a drift of the machine's load falls on both alike.
func Generators(ctx context.Context, cfg GeneratorConfig) (GeneratorResult, error) {
	res := GeneratorResult{Reference: cfg.Reference, Workers: cfg.Workers,
		Ours: GeneratorFigures{Name: "loadtest", ByRate: map[float64][]GeneratorRun{}}}
	if cfg.Rounds < 1 || cfg.Duration <= 0 || cfg.Workers < 1 || len(cfg.Rates) == 0 {
		return res, errors.New("generators: rounds, duration, workers and rates are needed")
	}
	log := cfg.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	gens := []generator{ours{bin: cfg.Loadtest}}
	if cfg.Vegeta == "" {
		log("vegeta CLI not installed: measuring the load tester alone (go install github.com/tsenart/vegeta/v12@v12.12.0)")
	} else {
		gens = append(gens, vegetaCLI{bin: cfg.Vegeta})
		res.Vegeta = &GeneratorFigures{Name: "vegeta", ByRate: map[float64][]GeneratorRun{}}
	}
	srv, err := cfg.Target.Start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { _ = srv.Stop() }()
	figures := func(g generator) *GeneratorFigures {
		if g.name() == "vegeta" {
			return res.Vegeta
		}
		return &res.Ours
	}
	rates := append(slices.Clone(cfg.Rates), 0) // 0: max rate
	for round := range cfg.Rounds {
		order := slices.Clone(gens)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, rate := range rates {
			for _, g := range order {
				dir := filepath.Join(cfg.Dir, fmt.Sprintf("%s-%d-%g", g.name(), round, rate))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return res, err
				}
				run, err := g.run(ctx, srv.URL, dir, rate, cfg.Workers, cfg.Duration)
				if err != nil {
					return res, fmt.Errorf("%s at %s: %w", g.name(), rateName(rate), err)
				}
				log("round %d, %s at %s: sent %d (%.0f/s), p99 %s corrected, %s from send, %d late (%.2f%%), %.1f µs CPU per request",
					round+1, g.name(), rateName(rate), run.Sent, run.Achieved, run.P99Corrected.Round(10*time.Microsecond),
					run.P99Send.Round(10*time.Microsecond), run.late(), run.LatePct, float64(run.CPUPerRequest())/1e3)
				f := figures(g)
				if rate == 0 {
					f.MaxRate = append(f.MaxRate, run)
				} else {
					f.ByRate[rate] = append(f.ByRate[rate], run)
				}
				_ = os.RemoveAll(dir)
			}
		}
	}
	return res, nil
}

func rateName(rate float64) string {
	if rate == 0 {
		return "max rate"
	}
	return strconv.FormatFloat(rate, 'f', -1, 64) + "/s"
}

// generator is one load generator the comparison drives.
type generator interface {
	name() string
	run(ctx context.Context, url, dir string, rate float64, workers int, d time.Duration) (GeneratorRun, error)
}

// ours drives cmd/loadtest: the create scenario, every response checked,
// no reconciliation (the target stores nothing to reconcile).
type ours struct{ bin string }

func (ours) name() string { return "loadtest" }

func (o ours) run(ctx context.Context, url, dir string, rate float64, workers int, d time.Duration) (GeneratorRun, error) {
	args := []string{"--target", url, "--scenario", "create", "--rate", strconv.FormatFloat(rate, 'f', -1, 64),
		"--duration", d.String(), "--no-reconcile", "--quiet", "--out", dir}
	if rate == 0 {
		args = append(args, "--max-workers", strconv.Itoa(workers))
	}
	use, err := runChild(ctx, o.bin, args, 1) // 1: a threshold failed, which is a finished run
	if err != nil {
		return GeneratorRun{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return GeneratorRun{}, err
	}
	run, err := parseReport(b, rate, use.cpu)
	run.PeakRSS, run.EndRSS = use.peakRSS, use.rssAtEnd(d)
	return run, err
}

// parseReport reads the figures of one run from the load tester's
// report.json.
func parseReport(b []byte, rate float64, cpu time.Duration) (GeneratorRun, error) {
	var rep struct {
		Corrected struct {
			P99 time.Duration `json:"p99"`
		} `json:"latency_corrected"`
		Raw struct {
			P99 time.Duration `json:"p99"`
		} `json:"latency_raw"`
		Generator struct {
			Sent         int64   `json:"sent"`
			AchievedRate float64 `json:"achieved_rate"`
			Late         int64   `json:"late"`
		} `json:"generator"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return GeneratorRun{}, fmt.Errorf("report.json: %w", err)
	}
	g := rep.Generator
	if g.Sent == 0 {
		return GeneratorRun{}, errors.New("report.json: nothing sent")
	}
	return GeneratorRun{Rate: rate, Sent: g.Sent, Achieved: g.AchievedRate, P99Send: rep.Raw.P99,
		P99Corrected: rep.Corrected.P99, LatePct: 100 * float64(g.Late) / float64(g.Sent), CPU: cpu}, nil
}

// vegetaCLI drives `vegeta attack` with the same payment and headers, and
// reads its results file.
type vegetaCLI struct{ bin string }

func (vegetaCLI) name() string { return "vegeta" }

func (v vegetaCLI) run(ctx context.Context, url, dir string, rate float64, workers int, d time.Duration) (GeneratorRun, error) {
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(paymentBody("perf-vegeta-0000000001")), 0o644); err != nil {
		return GeneratorRun{}, err
	}
	targets := filepath.Join(dir, "targets.txt")
	spec := fmt.Sprintf("POST %s%s\nX-SECRET-KEY: %s\nAuthorization: Bearer %s\nContent-Type: application/json\nAccept: application/json\n@%s\n",
		url, paymentPath, paymentSecret, paymentToken, body)
	if err := os.WriteFile(targets, []byte(spec), 0o644); err != nil {
		return GeneratorRun{}, err
	}
	out := filepath.Join(dir, "results.bin")
	args := []string{"attack", "-targets", targets, "-duration", d.String(), "-timeout", "5s", "-output", out}
	if rate == 0 {
		args = append(args, "-rate", "0", "-max-workers", strconv.Itoa(workers))
	} else {
		args = append(args, "-rate", strconv.FormatFloat(rate, 'f', -1, 64)+"/1s")
	}
	use, err := runChild(ctx, v.bin, args, 0)
	if err != nil {
		return GeneratorRun{}, err
	}
	f, err := os.Open(out)
	if err != nil {
		return GeneratorRun{}, err
	}
	defer func() { _ = f.Close() }()
	run, err := vegetaFigures(f, rate, d, use.cpu)
	run.PeakRSS, run.EndRSS = use.peakRSS, use.rssAtEnd(d)
	return run, err
}

// vegetaFigures computes a run's figures from vegeta's results. vegeta
// numbers its hits in the order they start and records the start, not the
// schedule: hit i is due at t0 + i/rate, where t0, the attack's start, is
// taken as late as the results allow (the latest t0 with no hit sent before
// its due time), which can only understate vegeta's lateness.
func vegetaFigures(r io.Reader, rate float64, d time.Duration, cpu time.Duration) (GeneratorRun, error) {
	dec := vegeta.NewDecoder(r)
	var rs []vegeta.Result
	for {
		var res vegeta.Result
		if err := dec.Decode(&res); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return GeneratorRun{}, fmt.Errorf("vegeta results: %w", err)
		}
		rs = append(rs, res)
	}
	if len(rs) == 0 {
		return GeneratorRun{}, errors.New("vegeta results: nothing sent")
	}
	run := GeneratorRun{Rate: rate, Sent: int64(len(rs)), CPU: cpu}
	due := func(res vegeta.Result) time.Duration {
		if rate == 0 {
			return 0
		}
		return time.Duration(float64(res.Seq) * float64(time.Second) / rate)
	}
	t0 := rs[0].Timestamp.Add(-due(rs[0]))
	last := rs[0].Timestamp
	for _, res := range rs {
		if at := res.Timestamp.Add(-due(res)); at.Before(t0) {
			t0 = at
		}
		if res.Timestamp.After(last) {
			last = res.Timestamp
		}
	}
	send := make([]time.Duration, len(rs))
	corrected := make([]time.Duration, len(rs))
	late := 0
	for i, res := range rs {
		send[i] = res.Latency
		corrected[i] = res.Latency
		if rate > 0 {
			lateness := res.Timestamp.Sub(t0.Add(due(res)))
			corrected[i] += lateness
			if lateness > lateAfter {
				late++
			}
		}
	}
	run.P99Send, run.P99Corrected = p99(send), p99(corrected)
	run.LatePct = 100 * float64(late) / float64(len(rs))
	run.Achieved = float64(len(rs)) / max(d, last.Sub(t0)).Seconds()
	return run, nil
}

// p99 is the nearest-rank 99th percentile of ds, which it sorts.
func p99(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[int(math.Ceil(0.99*float64(len(ds))))-1]
}

// generatorTimeout bounds one generator run past its duration (set-up,
// drain, writing its files).
const generatorTimeout = 2 * time.Minute

// usage is what a child process used: CPU time (user and system), its
// peak resident memory in bytes, and its resident memory read every
// hwmEvery since it started.
type usage struct {
	cpu     time.Duration
	peakRSS int64
	rss     []RSSSample
}

// endWindow is the end of a run whose resident memory stands for the
// run's steady state: after the warm-up, before the report is written.
const endWindow = 2 * time.Second

// rssAtEnd is the median of the resident memory read in the endWindow
// before end (the end of the attack, counted from the process's start);
// 0 when none was read then.
func (u usage) rssAtEnd(end time.Duration) int64 {
	var in []int64
	for _, s := range u.rss {
		if s.At >= end-endWindow && s.At < end {
			in = append(in, s.RSS)
		}
	}
	if len(in) == 0 {
		return 0
	}
	slices.Sort(in)
	return in[len(in)/2]
}

// runChild runs a generator to its end and returns what its process used.
// Exit status okStatus (besides 0) is a finished run too.
func runChild(ctx context.Context, bin string, args []string, okStatus int) (usage, error) {
	return runWatched(ctx, bin, args, okStatus, generatorTimeout, 0, nil)
}

// runWatched runs a child to its end, within timeout, calling watch with
// its process id every interval while it runs (never when interval is 0).
func runWatched(ctx context.Context, bin string, args []string, okStatus int, timeout, interval time.Duration, watch func(pid int)) (usage, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...) //nolint:gosec // the generators the comparison drives
	errs := &tail{max: 4096}
	cmd.Stdout, cmd.Stderr = io.Discard, errs
	if err := cmd.Start(); err != nil {
		return usage{}, fmt.Errorf("%s: %w", filepath.Base(bin), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var tick <-chan time.Time
	if interval > 0 && watch != nil {
		tk := time.NewTicker(interval)
		defer tk.Stop()
		tick = tk.C
	}
	hwm := time.NewTicker(hwmEvery)
	defer hwm.Stop()
	began := time.Now()
	var peak int64
	var samples []RSSSample
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick:
			watch(cmd.Process.Pid)
		case <-hwm.C:
			if b, rerr := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"); rerr == nil {
				if v, perr := parseHWM(b); perr == nil {
					peak = max(peak, v)
				}
				if v, perr := parseRSS(b); perr == nil {
					samples = append(samples, RSSSample{At: time.Since(began), RSS: v})
				}
			}
		}
	}
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != okStatus) {
		return usage{}, fmt.Errorf("%s: %w: %s", filepath.Base(bin), err, errs)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return usage{}, errors.New("no resource usage of the child process")
	}
	if peak == 0 {
		peak = ru.Maxrss * 1024 // Linux counts Maxrss in KiB
	}
	return usage{cpu: time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)), peakRSS: peak, rss: samples}, nil
}

// hwmEvery is how often a child's peak resident memory (VmHWM) is read.
// The child's own rusage Maxrss cannot be used for it on Linux: exec keeps
// the larger of the new image's and the forking parent's high-water mark,
// so every child would report at least this process's own peak (measured:
// the same 60, 220, 264 MiB for vegeta and the load tester alike, growing
// round by round with the perf process). VmHWM belongs to the new image
// only; a high-water mark read late in the run loses nothing but the last
// hwmEvery of growth.
const hwmEvery = 50 * time.Millisecond

// FindVegeta returns the vegeta CLI: on PATH, or where `go install` puts
// it ($GOBIN, else $GOPATH/bin, else ~/go/bin); "" when none has it.
func FindVegeta() string {
	if p, err := exec.LookPath("vegeta"); err == nil {
		return p
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		for d := range strings.SplitSeq(gp, string(os.PathListSeparator)) {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "vegeta")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// WriteRows writes the comparison as rows of the perf table (What,
// Measured, Detail, Goal, Met), one per line of docs/performance.md's table.
func (g GeneratorResult) WriteRows(w io.Writer) {
	o, v := g.Ours, g.Vegeta
	if v == nil {
		fmt.Fprintf(w, "| Load tester (vegeta CLI not installed: no comparison) | highest clean %s; max rate %.0f/s with %d workers; %.1f µs CPU per request | | | |\n",
			cleanName(o.HighestClean()), o.MaxRateAchieved(), g.Workers, micros(o.CPUPerRequest()))
		return
	}
	rounds := len(o.MaxRate)
	fmt.Fprintf(w, "| Load tester vs vegeta CLI, highest clean open-model rate (p99 from send <= %s, late sends <= %.0f %%) | %s vs %s | rates tried %s; clean in most of %d %s | at least vegeta's | %s |\n",
		cleanP99, cleanLatePct, cleanName(o.HighestClean()), cleanName(v.HighestClean()), rateList(o.ByRate), rounds, plural(rounds, "round"),
		met(o.HighestClean() >= v.HighestClean() && o.HighestClean() > 0))
	if _, ok := o.ByRate[g.Reference]; ok {
		oc, os, ol := o.At(g.Reference)
		vc, vs, vl := v.At(g.Reference)
		fmt.Fprintf(w, "| ... p99 at %s, corrected (from send), late sends | %s (%s), %.1f %% late vs %s (%s), %.1f %% late | medians of %d %s | at most vegeta's, corrected, no late sends | %s |\n",
			rateName(g.Reference), ms(oc), ms(os), ol, ms(vc), ms(vs), vl, rounds, plural(rounds, "round"), met(oc <= vc && ol == 0))
	}
	for _, rate := range peakRates {
		if len(o.ByRate[rate]) == 0 || len(v.ByRate[rate]) == 0 {
			continue
		}
		op, vp := o.PeakRSSAt(rate), v.PeakRSSAt(rate)
		if op == 0 || vp == 0 { // not read (a process too short-lived)
			continue
		}
		ratio := float64(op) / float64(max(vp, 1))
		fmt.Fprintf(w, "| Load tester peak resident memory at %s vs vegeta CLI | %.1f MiB vs %.1f MiB (%.2f×) | VmHWM of each generator's process read every %s; by round %s vs %s; medians of %d %s | at most %.1f× vegeta's | %s |\n",
			rateName(rate), mib(op), mib(vp), ratio, hwmEvery, peakList(o.ByRate[rate]), peakList(v.ByRate[rate]), rounds, plural(rounds, "round"),
			goalPeakRatio, met(ratio <= goalPeakRatio))
	}
	fmt.Fprintf(w, "| Load tester CPU per request at max rate (every check on) vs vegeta CLI | %.1f µs vs %.1f µs | user + system time of each generator's process over its sends, %d workers; medians of %d %s | at most vegeta's | %s |\n",
		micros(o.CPUPerRequest()), micros(v.CPUPerRequest()), g.Workers, rounds, plural(rounds, "round"), met(o.CPUPerRequest() <= v.CPUPerRequest()))
	fmt.Fprintf(w, "| Load tester max rate, %d workers | %.0f/s vs %.0f/s | medians of %d %s | at least vegeta's | %s |\n",
		g.Workers, o.MaxRateAchieved(), v.MaxRateAchieved(), rounds, plural(rounds, "round"), met(o.MaxRateAchieved() >= v.MaxRateAchieved()))
}

// peakList is the runs' peaks, in MiB, round by round.
func peakList(runs []GeneratorRun) string {
	s := make([]string, len(runs))
	for i, r := range runs {
		s[i] = strconv.FormatFloat(mib(r.PeakRSS), 'f', 1, 64)
	}
	return strings.Join(s, ", ")
}

// cleanName writes a highest clean rate: none when no rate tried was.
func cleanName(rate float64) string {
	if rate == 0 {
		return "none"
	}
	return rateName(rate)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

func rateList(by map[float64][]GeneratorRun) string {
	rates := slices.Sorted(maps.Keys(by))
	s := ""
	for i, r := range rates {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatFloat(r, 'f', -1, 64)
	}
	return s + "/s"
}
