// Command loadtest load-tests a Partner Commerce API v2 server: it sends
// payment creations (and reads) at a bounded rate for a bounded time,
// checks every response, reconciles balances and coins afterwards, and
// writes a text and JSON report, the vegeta results file and an HTML plot.
//
// With no target it starts the embedded reference server in-process on a
// free loopback port and runs a short demonstration.
//
//	loadtest [flags]                      run a load test
//	loadtest merge [flags] DIR...         merge the output directories of shards
//
// Exit status: 0 when every invariant and threshold holds, 1 when one does
// not, 2 when the run could not be carried out (or was incomplete: its
// answers were mostly a gateway's, not the API's; or nothing failed, but a
// rule that needs requests in flight together, a wallet's or the duplicate
// check, never got them), 130 (SIGINT) or 143 (SIGTERM) when it was interrupted
// (what was sent is still checked and reconciled; an interrupted run is
// never a pass).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// gcPercent is the collector's growth factor of the load tester unless
// GOGC sets one. Its live heap stays small (results and the ledger stream
// to files) while every request allocates, so at the default 100 the
// collector ran two to four times a second at 2,000 to 5,000/s, its pauses
// and assists falling on sends and making them late. 400 ran it a quarter
// as often but made the heap five times the live one, the most of the
// process's peak (46 to 81 MiB at 5,000/s against vegeta's 21, issue 38);
// with the collector's first cycle moved before the schedule (attack) and
// the live heap's worst-case buffers shrunk, 150 measured 32 MiB at
// 5,000/s with 1 send late of 25,000 (docs/performance.md).
const gcPercent = 150

// memoryLimit is the load tester's soft memory limit unless GOMEMLIMIT sets
// one. A run that keeps its schedule lives far below it; one that falls
// behind holds up to its worker cap of requests in flight (about 37 KiB
// each), which at GOGC 400 the heap would have let grow to five times that
// (544 MiB measured at 5,000/s on a loaded machine): near the limit the
// collector runs as often as it must instead. A run with the history check
// streams its operations to history.jsonl like its results, and the check
// reads them a bounded group at a time: it has the same limit.
const memoryLimit = 512 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	// The first ^C cancels ctx and the run winds down (drain, reconciliation);
	// the default handling is back by then, so a second ^C ends the process.
	ctx, stop := cli.NotifyContext(context.Background())
	context.AfterFunc(ctx, func() {
		if cli.Signalled(ctx) { // not stop
			fmt.Fprintln(os.Stderr, "\nloadtest: interrupted: the requests in flight drain (up to --drain), then the run is judged and reported; a second ^C ends it at once")
		}
	})
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, errFailed):
		os.Exit(1)
	case errors.Is(err, errInterrupted):
		os.Exit(cli.InterruptExitCode(ctx))
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
}

// errFailed is returned when the run was carried out and an invariant or
// threshold failed.
var errFailed = errors.New("load test failed")

// errInterrupted is returned when the run was stopped by a signal: what was
// sent was checked and reconciled, but the run is not a pass.
var errInterrupted = errors.New("load test interrupted")

// errIncomplete is returned when the run's answers were mostly a
// gateway's, not the API's, or when nothing failed but a rule that needs
// overlap was not exercised (report.Exercise): the report says so, and the
// run neither passes nor fails (exit 2, as a run that could not be carried
// out).
var errIncomplete = errors.New("INCOMPLETE")

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if slices.Contains(args, "--version") || slices.Contains(args, "-version") {
		_, err := io.WriteString(stdout, version.String("loadtest"))
		return err
	}
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	return runLoad(ctx, args, getenv, stdout, stderr)
}

func runLoad(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f, err := parseRunFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	s := &f.settings
	logger, err := newLogger(f.logLevel, stderr)
	if err != nil {
		return err
	}
	prof, stopRef, err := targetProfile(ctx, f, logger, stderr)
	if err != nil {
		return err
	}
	defer stopRef()
	dir := outputDir(f.outDir, s.RunID, s.Shard)
	opts := []loadtest.Option{loadtest.WithSettings(*s), loadtest.WithLogger(logger)}
	metrics, stopMetrics, err := startLive(ctx, s, *f.ths, stderr)
	if err != nil {
		return err
	}
	defer stopMetrics() // once the report is written
	if metrics != nil {
		opts = append(opts, loadtest.WithMetrics(metrics))
	}
	if !f.quiet {
		opts = append(opts, loadtest.WithProgress(time.Second, progressPrinter(stderr)))
	}
	if len(s.Nemesis) > 0 {
		log, err := nemesisLog(dir)
		if err != nil {
			return err
		}
		defer func() { _ = log.Close() }()
		opts = append(opts, loadtest.WithNemesisLog(log))
	}
	fmt.Fprintf(stderr, "loadtest: run %s, scenario %s, %s, shard %s → %s\n", s.RunID, s.Scenario, s.Load, s.Shard, dir)
	if w := s.Conn.Warning(); w != "" {
		fmt.Fprintf(stderr, "loadtest: %s\n", w)
	}
	rec, err := loadtest.New(prof, opts...).Run(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w before the attack began: %w", errInterrupted, err)
		}
		return err
	}
	if !f.quiet {
		fmt.Fprintln(stderr)
	}
	return finish(rec, judging{historyTimeout: f.historyTimeout, strict: f.strict, metrics: metrics}, *f.ths, dir, f.junit, stdout)
}

// parseRunFlags reads the flags of a load test (args) and the load profile
// file they name: the settings start from loadtest.DefaultSettings, the
// file's keys layer onto them, then LOADTEST_SHARD and LOADTEST_RUN_ID,
// then the flags given. A file in stages takes no load flags. The settings
// are checked (loadtest.Check) before anything starts or is written.
func parseRunFlags(args []string, getenv func(string) string, stderr io.Writer) (*runFlags, error) {
	f, set, err := parseRunFlagsOnto(args, getenv, stderr, "")
	if err == nil && f.loadFile != "" {
		f, set, err = parseRunFlagsOnto(args, getenv, io.Discard, f.loadFile)
	}
	if err != nil {
		return nil, err
	}
	s := &f.settings
	if f.loadFile != "" && s.Load.Pacing == pacing.Stages {
		for _, name := range f.loadFlags {
			if set[name] {
				return nil, fmt.Errorf("--%s: %s sets the load in stages; change the file instead", name, f.loadFile)
			}
		}
	}
	if f.historyTimeout <= 0 {
		return nil, errors.New("--history-timeout must be above 0")
	}
	if s.RunID, err = shardRunID(s.RunID, s.Shard); err != nil {
		return nil, err
	}
	return f, loadtest.Check(*s)
}

// parseRunFlagsOnto parses args onto the default settings with the load
// profile file loadFile (none: "") and the environment layered onto them;
// set are the flags given.
func parseRunFlagsOnto(args []string, getenv func(string) string, stderr io.Writer, loadFile string) (*runFlags, map[string]bool, error) {
	s := loadtest.DefaultSettings()
	if loadFile != "" {
		if err := loadtest.ReadProfile(loadFile, &s); err != nil {
			return nil, nil, err
		}
	}
	if v := getenv("LOADTEST_SHARD"); v != "" {
		if err := s.Shard.Set(v); err != nil {
			return nil, nil, fmt.Errorf("LOADTEST_SHARD: %w", err)
		}
	}
	if v := getenv("LOADTEST_RUN_ID"); v != "" {
		s.RunID = v
	}
	fs, f := runFlagSet(getenv, stderr, s)
	rest, err := cli.Parse(fs, args, "loadtest", "usage: loadtest [flags]   (loadtest merge [flags] SHARD-DIR... merges shards)")
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		return nil, nil, fmt.Errorf("unexpected arguments: %v (see loadtest --help)", rest)
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return f, set, nil
}

// targetProfile is the profile of the server under load: f's --profile
// (at --target, if given), the reference's profile at --target, or the
// embedded reference, with f's --reference-fault, started on a loopback
// port until stop is called.
func targetProfile(ctx context.Context, f *runFlags, logger *slog.Logger, stderr io.Writer) (prof *profiles.Profile, stop func(), err error) {
	stop = func() {}
	profilePath, target := f.profilePath, f.target
	if f.referenceFaults != "" && (profilePath != "" || target != "") {
		return nil, stop, errors.New("--reference-fault is for the embedded reference: leave out --target and --profile, or start the reference with --fault")
	}
	switch {
	case profilePath != "":
		if prof, err = profiles.Load(profilePath); err != nil {
			return nil, stop, err
		}
		if target != "" {
			prof.BaseURL = strings.TrimRight(target, "/")
		}
		return prof, stop, nil
	case target != "":
		return profiles.Reference(target), stop, nil
	}
	var opts []reference.Option
	if f.referenceFaults != "" {
		faults, err := reference.ParseFaults(f.referenceFaults)
		if err != nil {
			return nil, stop, fmt.Errorf("--reference-fault: %w", err)
		}
		opts = append(opts, reference.WithFaults(faults...))
	}
	url, stopRef, err := httpapi.ServeLoopback(ctx, logger, opts...)
	if err != nil {
		return nil, stop, err
	}
	fmt.Fprintf(stderr, "loadtest: no --target: started the embedded reference at %s\n", url)
	if f.referenceFaults != "" {
		fmt.Fprintf(stderr, "loadtest: the embedded reference runs with the faults %s (--reference-fault)\n", f.referenceFaults)
	}
	return profiles.Reference(url), stopRef, nil
}

// newLogger logs the set-up events at level and above on stderr.
func newLogger(level string, stderr io.Writer) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl})), nil
}

// shardRunID is the run id of a shard: runID, required with several
// shards (so that their ids and reports belong together), else a new one.
func shardRunID(runID string, shard record.Shard) (string, error) {
	if shard.Count > 1 && runID == "" {
		return "", errors.New("--run-id is required with --shard n > 1, so that the shards' ids and reports belong together")
	}
	if runID == "" {
		runID = loadtest.NewRunID()
	}
	return runID, loadtest.ValidateRunID(runID)
}

// outputDir is outDir, or reports/load/<run-id>[/shard-i-of-n].
func outputDir(outDir, runID string, shard record.Shard) string {
	if outDir != "" {
		return outDir
	}
	dir := filepath.Join("reports", "load", runID)
	if shard.Count > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count))
	}
	return dir
}

// strictUsage is the help of --strict, a flag of a run and of a merge.
const strictUsage = "turn warnings (checks resting on a reading of the document, such as a status look-up's amounts differing from the payment's answer) into failures"

// junitUsage is the help of --junit, a flag of a run and of a merge.
const junitUsage = "also write the verdict as JUnit XML to this file, for a CI's test tab: a test case per invariant class (lost writes, duplicate debits, wallet mismatches, uncertain requests, contract violations, ...) and per threshold, failed with what was measured"

// judging is how finish judges a record: the bound on the history check,
// and whether a warning fails the run (--strict).
type judging struct {
	historyTimeout time.Duration
	strict         bool
	metrics        *live.Metrics // the live metrics, shown the report's thresholds; nil: none
}

// finish judges the record of the run as j says, builds the report, writes
// the artifacts (and the JUnit file junitPath, if any), prints the summary
// and turns a failed report into errFailed.
func finish(rec *record.Run, j judging, ths []report.Threshold, dir, junitPath string, stdout io.Writer) error {
	v, err := verdict.Judge(rec, j.historyTimeout)
	if err != nil {
		return err
	}
	v.Strict = j.strict
	rep := report.BuildReport(rec, v, ths)
	if j.metrics != nil {
		j.metrics.Judged(rep.Thresholds)
	}
	if err := report.WriteArtifacts(dir, rec, rep); err != nil {
		return err
	}
	if junitPath != "" {
		if err := atomicfile.Write(junitPath, report.JUnit(rep)); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if err := report.Text(rep)(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nReports in %s: %s (the page to open), %s (vegeta report/plot), %s, %s, %s, %s, %s\n", dir,
		report.FileHTML, record.FileResults, report.FileReport, report.FileText, report.FilePlot, record.FileLedger, record.FileShard)
	if r := rep.Reconciliation; r != nil && len(r.Entries) > 0 {
		fmt.Fprintf(stdout, "Every id of the verdict in %s\n", filepath.Join(dir, report.FileViolations))
	}
	if len(rec.Meta.Faults) > 0 {
		fmt.Fprintf(stdout, "The fault commands' output in %s\n", filepath.Join(dir, record.FileNemesisLog))
	}
	if h := rep.History; h != nil {
		fmt.Fprintf(stdout, "History in %s: %s", dir, record.FileHistory)
		if !h.Passed() && h.Verdict == verdict.HistoryIllegal {
			fmt.Fprintf(stdout, ", %s (porcupine's visualisation of the part no serial order explains)", verdict.FileHistoryHTML)
		}
		fmt.Fprintln(stdout)
	}
	switch {
	case rep.Interrupted:
		return errInterrupted
	case rep.Incomplete != "":
		return fmt.Errorf("%w: %s", errIncomplete, rep.Incomplete)
	case !rep.Passed:
		return errFailed
	}
	return nil
}

// nemesisLog creates the run directory and opens its nemesis log, where
// the fault commands write their output.
func nemesisLog(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, record.FileNemesisLog), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("nemesis log: %w", err)
	}
	return f, nil
}

// progressPrinter returns the live progress callback: one line, rewritten
// in place on a terminal, otherwise one line per interval.
func progressPrinter(w io.Writer) func(loadtest.Progress) {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return func(p loadtest.Progress) {
		if p.Phase == loadtest.PhaseReconcile {
			line := fmt.Sprintf("[%5.1fs] reconciling: %s of %s ids looked up", p.Elapsed.Seconds(), readable.Thousands(p.LookedUp), readable.Thousands(p.ToLookUp))
			if tty {
				fmt.Fprintf(w, "\r\033[K%s", line)
			} else {
				fmt.Fprintln(w, line)
			}
			return
		}
		line := fmt.Sprintf("[%5.1fs] sent %d  rate %.1f/s  p50 %s  p99 %s  unexpected %d%s  in flight %d",
			p.Elapsed.Seconds(), p.Sent, p.Rate, p.P50.Round(10*time.Microsecond), p.P99.Round(10*time.Microsecond),
			p.Unexpected, liveCounts(p), p.InFlight)
		if p.BehindFrom > 0 {
			line += fmt.Sprintf("  BEHIND its schedule since %.1fs", p.BehindFrom.Seconds())
		}
		if p.Final {
			line = fmt.Sprintf("[%5.1fs] done: sent %d  average rate %.1f/s  unexpected %d%s",
				p.Elapsed.Seconds(), p.Sent, p.Rate, p.Unexpected, liveCounts(p))
			switch {
			case p.GatewayStopped:
				line += "; stopped: the answers are mostly a gateway's, not the API's"
			case p.Reconciles:
				line += "; judged after the attack: lost and resurrected payments, wallets"
			}
		}
		switch {
		case tty && p.Final:
			fmt.Fprintf(w, "\r\033[K%s\n", line)
		case tty:
			fmt.Fprintf(w, "\r\033[K%s", line)
		default:
			fmt.Fprintln(w, line)
		}
	}
}

// liveCounts is what the progress line counts of the verdict as the
// answers come, by class: the contract violations, the ids created again
// (in a scenario that sends ids again), the answers a gateway gave
// instead of the API, the throttled ones. The verdict counts the same
// (report.Findings); what it judges after the attack, the final line
// names.
func liveCounts(p loadtest.Progress) string {
	s := fmt.Sprintf("  contract violations %d", p.Violations)
	if p.FindsCreatedAgain {
		s += fmt.Sprintf("  created again %d", p.CreatedAgain)
	}
	if p.Gateway > 0 {
		s += fmt.Sprintf("  gateway %d", p.Gateway)
	}
	if p.Throttled > 0 {
		s += fmt.Sprintf("  throttled %d", p.Throttled)
	}
	return s
}

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "output directory (default reports/load/<run-id>/merged)")
	strict := fs.Bool("strict", false, strictUsage)
	junitPath := fs.String("junit", "", junitUsage)
	partial := fs.Bool("partial", false, "merge even when some shards are missing (accounts shared with a missing shard then fail to reconcile)")
	ths := thresholdFlags(fs)
	fs.Usage = groupedUsage(fs, stderr, mergeHelpIntro, mergeGroups, mergeHelpExamples)
	const usage = "usage: loadtest merge [flags] SHARD-DIR..."
	dirs, err := cli.Parse(fs, args, "loadtest merge", usage)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return errors.New("merge: no shard directory given\n" + usage + "\nsee loadtest merge --help for every flag")
	}
	var shards []*record.Run
	for _, d := range dirs {
		rec, err := record.ReadDir(d)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", d, err)
		}
		shards = append(shards, rec)
	}
	m, err := record.Merge(shards, *partial)
	if err != nil {
		return err
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Join("reports", "load", m.Meta.RunID, "merged")
	}
	return finish(m, judging{historyTimeout: verdict.DefaultHistoryTimeout, strict: *strict}, *ths, dir, *junitPath, stdout) // a run with the history check (one shard) is checked again from its file
}
