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
// not, 2 when the run could not be carried out, 130 (SIGINT) or 143 (SIGTERM) when it was interrupted
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
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// gcPercent is the collector's growth factor of the load tester unless
// GOGC sets one. Its live heap stays small (results and the ledger stream
// to files) while every request allocates, so at the default 100 the
// collector ran two to four times a second at 2,000 to 5,000/s, its pauses
// and assists falling on sends and making them late; at 400 it runs a
// quarter as often, for a heap a few tens of MB larger that does not grow
// with the run.
const gcPercent = 400

// memoryLimit is the load tester's soft memory limit unless GOMEMLIMIT sets
// one. A run that keeps its schedule lives far below it; one that falls
// behind holds up to its worker cap of requests in flight (about 37 KiB
// each), which at gcPercent the heap would let grow to five times that
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first ^C cancels ctx and the run winds down (drain, reconciliation);
	// restoring the default handling then lets a second ^C end the process.
	go func() { <-ctx.Done(); stop() }()
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

// thresholdFlags registers the k6-style threshold flags on fs.
func thresholdFlags(fs *flag.FlagSet) *[]report.Threshold {
	var ths []report.Threshold
	add := func(name, usage string, build func(string) (report.Threshold, error)) {
		fs.Func(name, usage, func(v string) error {
			th, err := build(v)
			if err != nil {
				return err
			}
			ths = append(ths, th)
			return nil
		})
	}
	for _, m := range []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"} {
		add("max-"+m, "fail when the corrected "+m+" latency exceeds this duration (e.g. 50ms)",
			func(v string) (report.Threshold, error) { return report.MaxThreshold(m, v) })
		add("max-raw-"+m, "fail when the raw "+m+" latency exceeds this duration",
			func(v string) (report.Threshold, error) { return report.MaxThreshold("raw_"+m, v) })
	}
	add("min-success", "fail when fewer than this percentage of requests got an answer the document allows: the expected one or a documented refusal such as 422 for an empty wallet; 5xx and unanswered requests count against it (e.g. 99.9)",
		func(v string) (report.Threshold, error) { return report.MinThreshold("allowed", v) })
	add("min-expected", "fail when fewer than this percentage of requests got the answer the scenario expects (a created payment, 200 for reads)",
		func(v string) (report.Threshold, error) { return report.MinThreshold("success", v) })
	add("max-server-errors", "fail when more than this percentage of requests got a 5xx or no readable answer",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("server_errors", v) })
	add("max-errors", "fail when more requests than this got an unexpected answer",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("errors", v) })
	add("max-duplicate-debits", "fail when more ids than this were created more than once (counted per extra creation)",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("duplicate_debits", v) })
	add("max-uncertain", fmt.Sprintf("fail when more than this percentage of requests got no answer within --timeout: the server did not answer (default %g)", report.DefaultMaxUncertainPct),
		func(v string) (report.Threshold, error) { return report.MaxThreshold("uncertain_pct", v) })
	add("max-throttled-pct", "fail when more than this percentage of requests were throttled (429, or 503 with Retry-After); by default a throttled run passes and says the offered rate was above the target's limit",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("throttled_pct", v) })
	add("max-late-sends", "fail when more than this percentage of sends were late",
		func(v string) (report.Threshold, error) { return report.MaxThreshold("late_sends", v) })
	add("min-achieved-rate", "fail when the generator sent less than this percentage of the scheduled requests",
		func(v string) (report.Threshold, error) { return report.MinThreshold("achieved_rate", v) })
	add("threshold", "a threshold expression, repeatable: metric<=value or metric>=value; metrics: "+strings.Join(report.ThresholdMetrics(), " "),
		report.ParseThreshold)
	return &ths
}

// runFlags are the flags of a load test.
type runFlags struct {
	profilePath, target, scenario, loadFile, pacing, startAt    *string
	mix, ops, whenDry, products, shard, runID, outDir, logLevel *string
	check                                                       *string
	rate, endRate, amplitude                                    *float64
	period, duration, timeout, drain, late                      *time.Duration
	reconcileTO, retryTO, backoff, historyTO, historyRead       *time.Duration
	wave, maxWorkers, maxConns, retries                         *int
	quiet, noReconcile, strict                                  *bool
	ths                                                         *[]report.Threshold
	faults                                                      nemesis.Schedule
}

// runFlagSet defines the flags of a load test.
func runFlagSet(getenv func(string) string, stderr io.Writer) (*flag.FlagSet, *runFlags) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &runFlags{
		profilePath: fs.String("profile", getenv("LOADTEST_PROFILE"), "target profile YAML (default: the embedded reference's profile)"),
		target:      fs.String("target", getenv("LOADTEST_TARGET"), "base URL of the server; none starts the embedded reference on a free loopback port"),
		scenario:    fs.String("scenario", loadtest.ScenarioMixed, "scenario: "+strings.Join(loadtest.Scenarios(), ", ")),
		loadFile:    fs.String("load-profile", "", "load profile YAML: pacing, rate, duration, ... or several stages run one after the other (profiles/load/stages.yaml); flags given explicitly override a one-stage file"),
		pacing:      fs.String("pacing", pacing.Constant, "pacing: constant, linear or sine (several stages: --load-profile)"),
		rate:        rateFlag(fs, "rate", 200, "the `rate` in requests per second, in every scenario (idempotency: rate ÷ wave size waves a second); vegeta's 100/1s or 6000/1m also work; 0: max rate; linear: start rate; sine: mean"),
		endRate:     rateFlag(fs, "end-rate", 0, "linear pacing: the `rate` at the end (requests per second, or 100/1s)"),
		amplitude:   rateFlag(fs, "amplitude", 0, "sine pacing: the amplitude, a `rate` (requests per second, or 100/1s)"),
		period:      fs.Duration("period", 10*time.Second, "sine pacing: period"),
		startAt:     fs.String("start-at", "mean-up", "sine pacing: mean-up, peak, mean-down or trough"),
		duration:    fs.Duration("duration", 10*time.Second, "duration of the attack"),
		mix:         fs.String("mix", loadtest.DefaultPaymentMix.String(), "payment kinds and weights: balance, coins, gateway"),
		ops:         fs.String("ops", loadtest.DefaultOpMix.String(), "mixed scenario: operations and weights: create, status, list, sync"),
		whenDry:     fs.String("when-dry", record.DryContinue, "when the load customers can afford no product: continue (send anyway; the refusals are reported as exhaustion), gateway (pay the rest through gateways) or stop (end the attack)"),
		products:    fs.String("products", "", "pay only for these products: ids or sub categories, comma separated (1001,1002 or prabayar)"),
		wave:        fs.Int("wave-size", loadtest.DefaultWaveSize, "idempotency: concurrent requests per partner_trx_id"),
		maxWorkers:  fs.Int("max-workers", loadtest.DefaultMaxWorkers, "cap on concurrent requests of the generator (0: the peak rate × --timeout, between 64 and 5,000: a run that falls behind waits for a worker and says so; a max-rate run, --rate 0, needs one)"),
		maxConns:    fs.Int("max-connections", loadtest.DefaultMaxConnections, "cap on connections to the target (0: none, connections scale with the requests in flight)"),
		timeout:     fs.Duration("timeout", loadtest.DefaultTimeout, "per-request timeout"),
		drain:       fs.Duration("drain", loadtest.DefaultDrain, "how long in-flight requests may finish after the duration"),
		late:        fs.Duration("late", loadtest.DefaultLateAfter, "a send later than this after its scheduled time counts as late"),
		shard:       fs.String("shard", envOr(getenv, "LOADTEST_SHARD", "0/1"), "this machine's shard i/n of a distributed run"),
		runID:       fs.String("run-id", getenv("LOADTEST_RUN_ID"), "run id shared by all shards (required with --shard n > 1; [a-z0-9], ≤ 20)"),
		outDir:      fs.String("out", getenv("LOADTEST_OUT"), "output directory (default reports/load/<run-id>[/shard-i-of-n])"),
		quiet:       fs.Bool("quiet", false, "no live progress line"),
		noReconcile: fs.Bool("no-reconcile", false, "skip the status look-ups and wallet reconciliation"),
		reconcileTO: fs.Duration("reconcile-timeout", loadtest.DefaultReconcileTimeout, "bound on the reconciliation; what it has not checked by then fails"),
		logLevel:    fs.String("log-level", "warn", "log level of set-up events: debug, info, warn, error"),
		retries:     fs.Int("retries", loadtest.DefaultRetries, "retry scenario: sends of a payment after its first whose answer was lost"),
		retryTO:     fs.Duration("retry-timeout", loadtest.DefaultRetryTimeout, "retry scenario: the short client timeout of each send of a payment"),
		backoff:     fs.Duration("retry-backoff", loadtest.DefaultRetryBackoff, "retry scenario: the wait before the first retry, doubled before each next"),
		check:       fs.String("check", "", "extra checks after the run: history (record every operation, read the profiles during the attack, and check per account that some serial order of the payments explains every read; create, mixed and retry)"),
		historyTO:   fs.Duration("history-timeout", verdict.DefaultHistoryTimeout, "bound on the history check; what it has not decided by then fails"),
		strict:      fs.Bool("strict", false, strictUsage),
		historyRead: fs.Duration("history-reads", 0, "with --check history: how often each account's profile is read during the attack (0: about one read for every five requests)"),
	}
	f.ths = thresholdFlags(fs)
	fs.Func("nemesis", "a fault run during the attack, repeatable: WHEN: COMMAND, e.g. 'every 5s from 2s: systemctl restart payments', "+
		"'at 3s for 2s: kill -STOP 4242 ;; kill -CONT 4242' (the command after ;; ends the fault); before the colon also until T, timeout D "+
		"(default 10s), shell (run with sh -c), name NAME; commands run without a shell unless asked, their output in nemesis.log; "+
		"the load profile's nemesis: list is added", func(v string) error {
		st, err := nemesis.ParseStep(v)
		if err == nil {
			f.faults = append(f.faults, st)
		}
		return err
	})
	fs.Usage = groupedUsage(fs, stderr, runHelpIntro, runGroups, runHelpExamples)
	return fs, f
}

func runLoad(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, f := runFlagSet(getenv, stderr)
	rest, err := cli.Parse(fs, args, "loadtest", "usage: loadtest [flags]   (loadtest merge [flags] SHARD-DIR... merges shards)")
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments: %v (see loadtest --help)", rest)
	}
	logger, err := newLogger(*f.logLevel, stderr)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	plan, err := f.parse(set)
	if err != nil {
		return err
	}
	lp, shard := plan.load, plan.shard
	prof, stopRef, err := targetProfile(ctx, *f.profilePath, *f.target, logger, stderr)
	if err != nil {
		return err
	}
	defer stopRef()
	dir := outputDir(*f.outDir, *f.runID, shard)
	opts, closeLog, err := f.options(plan, dir, logger, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	fmt.Fprintf(stderr, "loadtest: run %s, scenario %s, %s, shard %s → %s\n", *f.runID, *f.scenario, lp, shard, dir)
	o, err := loadtest.New(prof, opts...).Run(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w before the attack began: %w", errInterrupted, err)
		}
		return err
	}
	if !*f.quiet {
		fmt.Fprintln(stderr)
	}
	return finish(o, judging{*f.historyTO, *f.strict}, *f.ths, dir, stdout)
}

// runPlan is what the flags ask of a run, parsed and checked.
type runPlan struct {
	load          pacing.LoadProfile
	shard         record.Shard
	payMix, opMix loadtest.Weights
}

// parse reads the load of the flags and the load profile file (set are
// the flags given), checked with its faults before anything starts or is
// written, the shard and its run id, and the mixes.
func (f *runFlags) parse(set map[string]bool) (runPlan, error) {
	var run runPlan
	run.load = pacing.LoadProfile{Pacing: *f.pacing, Rate: *f.rate, EndRate: *f.endRate, Amplitude: *f.amplitude,
		Period: *f.period, StartAt: *f.startAt, Duration: *f.duration}
	var err error
	if run.load, f.faults, err = withLoadFile(run.load, *f.loadFile, set, f.faults); err != nil {
		return run, err
	}
	if err := f.faults.Validate(run.load.Duration, exec.LookPath); err != nil {
		return run, err
	}
	if run.shard, err = record.ParseShard(*f.shard); err != nil {
		return run, err
	}
	if *f.runID, err = shardRunID(*f.runID, run.shard); err != nil {
		return run, err
	}
	run.payMix, run.opMix, err = parseMixes(*f.mix, *f.ops)
	return run, err
}

// options are the load tester's options of the flags, with the nemesis
// log (closed by the returned function) in dir when faults run.
func (f *runFlags) options(run runPlan, dir string, logger *slog.Logger, stderr io.Writer) ([]loadtest.Option, func(), error) {
	opts := []loadtest.Option{
		loadtest.WithScenario(*f.scenario), loadtest.WithLoad(run.load), loadtest.WithPaymentMix(run.payMix),
		loadtest.WithOpMix(run.opMix), loadtest.WithWaveSize(*f.wave), loadtest.WithProducts(splitList(*f.products)...), loadtest.WithWhenDry(*f.whenDry), loadtest.WithMaxWorkers(*f.maxWorkers),
		loadtest.WithMaxConnections(*f.maxConns), loadtest.WithTimeout(*f.timeout), loadtest.WithDrain(*f.drain),
		loadtest.WithLateAfter(*f.late), loadtest.WithShard(run.shard), loadtest.WithRunID(*f.runID),
		loadtest.WithReconcile(!*f.noReconcile), loadtest.WithReconcileTimeout(*f.reconcileTO), loadtest.WithLogger(logger),
		loadtest.WithRetry(*f.retries, *f.retryTO, *f.backoff),
	}
	checks, err := checkOptions(*f.check, *f.historyTO, *f.historyRead)
	if err != nil {
		return nil, nil, err
	}
	opts = append(opts, checks...)
	if !*f.quiet {
		opts = append(opts, loadtest.WithProgress(time.Second, progressPrinter(stderr)))
	}
	closeLog := func() {}
	if len(f.faults) > 0 {
		log, closeFile, err := nemesisLog(dir)
		if err != nil {
			return nil, nil, err
		}
		closeLog = closeFile
		opts = append(opts, loadtest.WithNemesis(f.faults, log))
	}
	return opts, closeLog, nil
}

// withLoadFile is the load of the flags (lp), or of loadFile with the flags
// given explicitly (set) overriding it; a file's nemesis steps go before
// those of the flags. A file in stages takes no load flags.
func withLoadFile(lp pacing.LoadProfile, loadFile string, set map[string]bool, faults nemesis.Schedule) (pacing.LoadProfile, nemesis.Schedule, error) {
	if loadFile != "" {
		fromFile, err := pacing.LoadFile(loadFile)
		if err != nil {
			return lp, faults, err
		}
		if fromFile.Pacing == pacing.Stages {
			for _, name := range []string{"pacing", "rate", "end-rate", "amplitude", "period", "start-at", "duration"} {
				if set[name] {
					return lp, faults, fmt.Errorf("--%s: %s sets the load in stages; change the file instead", name, loadFile)
				}
			}
		}
		override(&fromFile, lp, set)
		lp = fromFile
		faults = append(lp.Nemesis, faults...)
		lp.Nemesis = nil
	}
	if lp.Pacing != pacing.Sine {
		lp.Period, lp.StartAt = 0, ""
	}
	return lp, faults, lp.Validate()
}

// targetProfile is the profile of the server under load: profilePath (at
// target, if given), the reference's profile at target, or the embedded
// reference started on a loopback port until stop is called.
func targetProfile(ctx context.Context, profilePath, target string, logger *slog.Logger, stderr io.Writer) (prof *profiles.Profile, stop func(), err error) {
	stop = func() {}
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
	url, stopRef, err := httpapi.ServeLoopback(ctx, logger)
	if err != nil {
		return nil, stop, err
	}
	fmt.Fprintf(stderr, "loadtest: no --target: started the embedded reference at %s\n", url)
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

// checkOptions are the options of the extra checks named by --check.
func checkOptions(check string, historyTimeout, historyReads time.Duration) ([]loadtest.Option, error) {
	switch check {
	case "":
		return nil, nil
	case "history":
		if historyTimeout <= 0 {
			return nil, errors.New("--history-timeout must be above 0")
		}
		return []loadtest.Option{loadtest.WithHistory(true), loadtest.WithHistoryReads(historyReads)}, nil
	default:
		return nil, fmt.Errorf("--check: unknown check %q (want history)", check)
	}
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

// parseMixes parses --mix (payment kinds) and --ops (operations).
func parseMixes(mix, ops string) (payMix, opMix loadtest.Weights, err error) {
	if payMix, err = loadtest.ParseWeights(mix, record.KindBalance, record.KindCoins, record.KindGateway); err != nil {
		return nil, nil, fmt.Errorf("--mix: %w", err)
	}
	if opMix, err = loadtest.ParseWeights(ops, record.OpCreate, record.OpStatus, record.OpList, record.OpSync); err != nil {
		return nil, nil, fmt.Errorf("--ops: %w", err)
	}
	return payMix, opMix, nil
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

// judging is how finish judges a record: the bound on the history check,
// and whether a warning fails the run (--strict).
type judging struct {
	historyTimeout time.Duration
	strict         bool
}

// finish judges the record of the run as j says, builds the report, writes
// the artifacts, prints the summary and turns a failed report into
// errFailed.
func finish(o *record.Run, j judging, ths []report.Threshold, dir string, stdout io.Writer) error {
	v, err := verdict.Judge(o, j.historyTimeout)
	if err != nil {
		return err
	}
	v.Strict = j.strict
	rep := report.BuildReport(o, v, ths)
	if err := report.WriteArtifacts(dir, o, rep); err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nReports in %s: %s (the page to open), %s (vegeta report/plot), %s, %s, %s, %s, %s\n", dir,
		report.FileHTML, record.FileResults, report.FileReport, report.FileText, report.FilePlot, record.FileLedger, record.FileShard)
	if r := rep.Reconciliation; r != nil && len(r.Entries) > 0 {
		fmt.Fprintf(stdout, "Every id of the verdict in %s\n", filepath.Join(dir, report.FileViolations))
	}
	if len(o.Meta.Faults) > 0 {
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
	case !rep.Passed:
		return errFailed
	}
	return nil
}

// nemesisLog creates the run directory and opens its nemesis log, where
// the fault commands write their output.
func nemesisLog(dir string) (*os.File, func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, record.FileNemesisLog), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("nemesis log: %w", err)
	}
	return f, func() { _ = f.Close() }, nil
}

// override copies into dst the fields of flags whose flag was set explicitly.
func override(dst *pacing.LoadProfile, flags pacing.LoadProfile, set map[string]bool) {
	if set["pacing"] {
		dst.Pacing = flags.Pacing
	}
	if set["rate"] {
		dst.Rate = flags.Rate
	}
	if set["end-rate"] {
		dst.EndRate = flags.EndRate
	}
	if set["amplitude"] {
		dst.Amplitude = flags.Amplitude
	}
	if set["period"] {
		dst.Period = flags.Period
	}
	if set["start-at"] {
		dst.StartAt = flags.StartAt
	}
	if set["duration"] {
		dst.Duration = flags.Duration
	}
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
			line := fmt.Sprintf("[%5.1fs] reconciling: %s of %s ids looked up", p.Elapsed.Seconds(), readable.Count(p.LookedUp), readable.Count(p.ToLookUp))
			if tty {
				fmt.Fprintf(w, "\r\033[K%s", line)
			} else {
				fmt.Fprintln(w, line)
			}
			return
		}
		line := fmt.Sprintf("[%5.1fs] sent %d  rate %.1f/s  p50 %s  p99 %s  unexpected %d  violations %d  in flight %d",
			p.Elapsed.Seconds(), p.Sent, p.Rate, p.P50.Round(10*time.Microsecond), p.P99.Round(10*time.Microsecond),
			p.Unexpected, p.Violations, p.InFlight)
		if p.BehindFrom > 0 {
			line += fmt.Sprintf("  BEHIND its schedule since %.1fs", p.BehindFrom.Seconds())
		}
		if p.Final {
			line = fmt.Sprintf("[%5.1fs] done: sent %d  average rate %.1f/s  unexpected %d  violations %d",
				p.Elapsed.Seconds(), p.Sent, p.Rate, p.Unexpected, p.Violations)
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

func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	outDir := fs.String("out", "", "output directory (default reports/load/<run-id>/merged)")
	strict := fs.Bool("strict", false, strictUsage)
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
	var outs []*record.Run
	for _, d := range dirs {
		o, err := record.ReadDir(d)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", d, err)
		}
		outs = append(outs, o)
	}
	m, err := record.Merge(outs, *partial)
	if err != nil {
		return err
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Join("reports", "load", m.Meta.RunID, "merged")
	}
	return finish(m, judging{verdict.DefaultHistoryTimeout, *strict}, *ths, dir, stdout) // a run with the history check (one shard) is checked again from its file
}

// rate is a flag value in requests per second that also reads vegeta's
// frequency/duration syntax (100/1s).
type rate float64

func (r *rate) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

func (r *rate) Set(s string) error {
	v, err := pacing.ParseRate(s)
	if err != nil {
		return err
	}
	*r = rate(v)
	return nil
}

func rateFlag(fs *flag.FlagSet, name string, def float64, usage string) *float64 {
	r := rate(def)
	fs.Var(&r, name, usage)
	return (*float64)(&r)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}
