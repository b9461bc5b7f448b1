package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Goals of the load tester's memory (docs/performance.md): it does not
// grow with the length of a run.
const (
	goalBytesPerRequest = 50        // resident memory growth per request, from a short run to a long one
	goalSoakHour        = 256 << 20 // resident memory after an hour at 5,000/s, extrapolated
)

// MemoryConfig is the measurement of the generators' memory as a run
// grows: each generator runs for Short and for Long at Rate against the
// cheap target, in alternating rounds; what grows with the run is the
// difference of the resident memory at the end of the attack (VmRSS, the
// median of its last endWindow) over the difference of requests. The peak
// (VmHWM) is not that measure: it is mostly what the warm-up reached
// (workers and connections started, the collector's first cycles), which
// a longer run only samples more often.
type MemoryConfig struct {
	Target      Launcher
	Loadtest    string
	Vegeta      string // "" when not installed
	Rate        float64
	Short, Long time.Duration
	Rounds      int
	Dir         string
	Log         func(format string, args ...any)
}

// MemoryFigures are one generator's short and long runs, one per round.
type MemoryFigures struct {
	Name        string
	Short, Long []GeneratorRun
}

// BytesPerRequest is the median over the rounds of the growth of the
// resident memory at the end of the attack from the short run to the long
// one, per request more.
func (f MemoryFigures) BytesPerRequest() float64 {
	var r Rounds
	for i := range min(len(f.Short), len(f.Long)) {
		s, l := f.Short[i], f.Long[i]
		if l.Sent > s.Sent {
			r.Values = append(r.Values, float64(l.EndRSS-s.EndRSS)/float64(l.Sent-s.Sent))
		}
	}
	return r.Median()
}

// ends is the median resident memory at the end of the short and the long
// runs; peaks is their median peak.
func (f MemoryFigures) ends() (short, long float64) {
	return medianOf(f.Short, func(r GeneratorRun) float64 { return float64(r.EndRSS) }),
		medianOf(f.Long, func(r GeneratorRun) float64 { return float64(r.EndRSS) })
}

func (f MemoryFigures) peaks() (short, long float64) {
	return medianOf(f.Short, func(r GeneratorRun) float64 { return float64(r.PeakRSS) }),
		medianOf(f.Long, func(r GeneratorRun) float64 { return float64(r.PeakRSS) })
}

// MemoryResult is the memory comparison, and the soak run when one was made.
type MemoryResult struct {
	Rate        float64
	Short, Long time.Duration
	Ours        MemoryFigures
	Vegeta      *MemoryFigures // nil when vegeta is not installed
	Soak        *SoakResult
}

// Memory runs the memory comparison.
func Memory(ctx context.Context, cfg MemoryConfig) (MemoryResult, error) {
	res := MemoryResult{Rate: cfg.Rate, Short: cfg.Short, Long: cfg.Long, Ours: MemoryFigures{Name: "loadtest"}}
	if cfg.Rounds < 1 || cfg.Rate <= 0 || cfg.Short <= 0 || cfg.Long <= cfg.Short {
		return res, fmt.Errorf("memory: rounds, a rate and a long run longer than the short one are needed")
	}
	log := cfg.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	gens := []generator{ours{bin: cfg.Loadtest}}
	if cfg.Vegeta != "" {
		gens = append(gens, vegetaCLI{bin: cfg.Vegeta})
		res.Vegeta = &MemoryFigures{Name: "vegeta"}
	}
	srv, err := cfg.Target.Start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { _ = srv.Stop() }()
	for round := range cfg.Rounds {
		order := slices.Clone(gens)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, d := range []time.Duration{cfg.Short, cfg.Long} {
			for _, g := range order {
				dir := filepath.Join(cfg.Dir, fmt.Sprintf("memory-%s-%d-%s", g.name(), round, d))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return res, err
				}
				run, err := g.run(ctx, srv.URL, dir, cfg.Rate, 0, d)
				_ = os.RemoveAll(dir)
				if err != nil {
					return res, fmt.Errorf("%s for %s: %w", g.name(), d, err)
				}
				log("round %d, %s for %s at %s: sent %d, resident memory %.1f MiB at the end (peak %.1f MiB)", round+1, g.name(), d, rateName(cfg.Rate), run.Sent, mib(run.EndRSS), mib(run.PeakRSS))
				f := &res.Ours
				if g.name() == "vegeta" {
					f = res.Vegeta
				}
				if d == cfg.Short {
					f.Short = append(f.Short, run)
				} else {
					f.Long = append(f.Long, run)
				}
			}
		}
	}
	return res, nil
}

// SoakConfig is one long run of the load tester whose resident memory is
// read every Every: its slope, extrapolated to an hour, is what a soak of
// an hour would hold.
type SoakConfig struct {
	Target   Launcher
	Loadtest string
	Rate     float64
	Duration time.Duration
	Every    time.Duration
	Dir      string
	Log      func(format string, args ...any)
}

// RSSSample is the load tester's resident memory at a time of its run.
type RSSSample struct {
	At  time.Duration
	RSS int64
}

// SoakResult is what the soak run measured.
type SoakResult struct {
	Rate     float64
	Duration time.Duration
	Sent     int64
	Achieved float64
	PeakRSS  int64
	Samples  []RSSSample
	// FellBehind says why the run did not keep its schedule (the load
	// tester's report: late sends, hits waiting at the worker cap, sends
	// short of the schedule) and since when; "" when it kept it. The
	// memory of such a run measures the requests piled up in flight, not
	// what the run records, so its slope is no valid figure.
	FellBehind string
}

// soakSettle is the start of a soak run left out of the slope: the
// connections, buffers and the collector's pacing settle in it.
const soakSettle = 30 * time.Second

// Slope fits resident memory = a + b·t over the samples after soakSettle
// (least squares); b in bytes per second.
func (s SoakResult) Slope() (a, b float64) {
	var n, sx, sy, sxx, sxy float64
	for _, p := range s.Samples {
		if p.At < soakSettle {
			continue
		}
		x, y := p.At.Seconds(), float64(p.RSS)
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	if n < 2 || n*sxx == sx*sx {
		return 0, 0
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - b*sx) / n, b
}

// AtOneHour is the resident memory the fitted line gives after an hour,
// and never less than the peak the run reached.
func (s SoakResult) AtOneHour() float64 {
	a, b := s.Slope()
	return max(a+b*3600, float64(s.PeakRSS))
}

// Soak runs the load tester for cfg.Duration, reading its resident
// memory every cfg.Every.
func Soak(ctx context.Context, cfg SoakConfig) (SoakResult, error) {
	res := SoakResult{Rate: cfg.Rate, Duration: cfg.Duration}
	if cfg.Rate <= 0 || cfg.Duration < 2*soakSettle || cfg.Every <= 0 {
		return res, fmt.Errorf("soak: a rate, a duration of at least %s and a sampling interval are needed", 2*soakSettle)
	}
	log := cfg.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	srv, err := cfg.Target.Start(ctx)
	if err != nil {
		return res, err
	}
	defer func() { _ = srv.Stop() }()
	dir := filepath.Join(cfg.Dir, "soak")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	args := []string{"--target", srv.URL, "--scenario", "create", "--rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64),
		"--duration", cfg.Duration.String(), "--no-reconcile", "--quiet", "--out", dir}
	began := time.Now()
	use, err := runWatched(ctx, cfg.Loadtest, args, 1, cfg.Duration+generatorTimeout, cfg.Every, func(pid int) {
		if rss, err := readRSS(pid); err == nil {
			at := time.Since(began)
			res.Samples = append(res.Samples, RSSSample{At: at, RSS: rss})
			log("soak at %s, %s: resident memory %.1f MiB", rateName(cfg.Rate), at.Round(time.Second), mib(rss))
		}
	})
	if err != nil {
		return res, err
	}
	res.PeakRSS = use.peakRSS
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return res, err
	}
	if err := res.readReport(b); err != nil {
		return res, err
	}
	if res.FellBehind != "" {
		log("soak: %s; its memory slope is no valid figure", res.FellBehind)
	}
	return res, nil
}

// readReport reads what was sent, at what rate, and whether the run fell
// behind, from the load tester's report.json.
func (s *SoakResult) readReport(b []byte) error {
	var rep struct {
		Generator struct {
			Sent         int64         `json:"sent"`
			AchievedRate float64       `json:"achieved_rate"`
			Limited      bool          `json:"limited"`
			Reasons      []string      `json:"reasons"`
			FellBehind   string        `json:"fell_behind"`
			BehindFrom   time.Duration `json:"behind_from"`
			BehindUntil  time.Duration `json:"behind_until"`
		} `json:"generator"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("report.json: %w", err)
	}
	g := rep.Generator
	s.Sent, s.Achieved = g.Sent, g.AchievedRate
	switch {
	case g.FellBehind != "":
		s.FellBehind = g.FellBehind
	case g.Limited:
		s.FellBehind = fmt.Sprintf("the run fell behind its schedule (from %s to %s): %s",
			g.BehindFrom.Round(time.Second), g.BehindUntil.Round(time.Second), strings.Join(g.Reasons, "; "))
	}
	return nil
}

func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	return parseRSS(b)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// WriteRows writes the memory rows of the perf table.
func (m MemoryResult) WriteRows(w io.Writer) {
	o := m.Ours
	rounds := len(o.Long)
	detail := fmt.Sprintf("VmRSS at the end of the attack (median of its last %s) %s; medians of %d %s",
		endWindow, o.memoryText(m.Short, m.Long), rounds, plural(rounds, "round"))
	perRequest := o.BytesPerRequest()
	measured := fmt.Sprintf("%.0f B", perRequest)
	if v := m.Vegeta; v != nil {
		measured += fmt.Sprintf(" vs %.0f B", v.BytesPerRequest())
		detail += "; vegeta " + v.memoryText(m.Short, m.Long)
	}
	ok := met(perRequest <= goalBytesPerRequest)
	if n := m.fellBehind(); n > 0 {
		ok = fmt.Sprintf("no: %d of the load tester's runs fell behind (more than %.0f%% of sends late or %.0f%% of the schedule not sent): "+
			"the memory is the pile of requests in flight, not what the run records", n, maxBehindPct, maxBehindPct)
	}
	fmt.Fprintf(w, "| Load tester resident memory growth per request, %s to %s run at %s (vs vegeta CLI) | %s | %s | at most %d B | %s |\n",
		m.Short, m.Long, rateName(m.Rate), measured, detail, goalBytesPerRequest, ok)
	if s := m.Soak; s != nil {
		s.WriteRow(w)
	}
}

// maxBehindPct is the share of late sends, or of the schedule not sent,
// above which a memory run fell behind (the load tester's report uses 5 %
// for both).
const maxBehindPct = 5.0

// fellBehind counts the load tester's memory runs that fell behind.
func (m MemoryResult) fellBehind() int {
	return m.behind(m.Ours.Short, m.Short) + m.behind(m.Ours.Long, m.Long)
}

// behind counts the runs of duration d that fell behind.
func (m MemoryResult) behind(runs []GeneratorRun, d time.Duration) int {
	n := 0
	for _, r := range runs {
		if r.LatePct > maxBehindPct || float64(r.Sent) < (1-maxBehindPct/100)*m.Rate*d.Seconds() {
			n++
		}
	}
	return n
}

// memoryText gives f's resident memory at the end of its short and long
// runs, and their peaks.
func (f MemoryFigures) memoryText(short, long time.Duration) string {
	es, el := f.ends()
	ps, pl := f.peaks()
	return fmt.Sprintf("%.1f MiB after %s, %.1f MiB after %s (peak VmHWM %.1f and %.1f MiB)",
		es/(1<<20), short, el/(1<<20), long, ps/(1<<20), pl/(1<<20))
}

// WriteRow writes the soak's row of the perf table.
func (s SoakResult) WriteRow(w io.Writer) {
	_, b := s.Slope()
	used := 0
	for _, p := range s.Samples {
		if p.At >= soakSettle {
			used++
		}
	}
	detail := fmt.Sprintf("slope %.2f MiB per 10 min over %d samples after the first %s; peak %.1f MiB; sent %d (%.0f/s)",
		b*600/(1<<20), used, soakSettle, mib(s.PeakRSS), s.Sent, s.Achieved)
	measured, ok := fmt.Sprintf("%.1f MiB", s.AtOneHour()/(1<<20)), met(s.AtOneHour() < goalSoakHour)
	if s.FellBehind != "" {
		measured, ok = "not valid", "no: "+s.FellBehind+" (its memory is the pile of requests in flight, not what the run records)"
	}
	fmt.Fprintf(w, "| Load tester resident memory after an hour at %s, extrapolated from a %s run | %s | %s | under %d MiB | %s |\n",
		rateName(s.Rate), s.Duration, measured, detail, goalSoakHour>>20, ok)
}
