// Command conformance proves that a server speaks the Partner Commerce API
// v2. With no --target it starts the embedded reference server in-process
// and tests it with the reference profile; with --target and --profile it
// tests any server. One run asks every judge (package judges): the
// scenarios, the generated properties and sequences, and the concurrency
// probe, with one report and one verdict; --judges narrows it.
//
// Exit codes: 0 every rule judged held (warnings included: a warning is a
// reading of the document the target did not follow; --strict makes it a
// failure), 1 a scenario, property or probe case failed, 2 the run is
// INCOMPLETE (a rule not judged: the target refused what its scenario
// needed to observe it, or a gateway in front of the API answered instead
// of it; a run whose answers are mostly a gateway's stops), or a usage or
// profile error, or a target that
// cannot be tested (preflight failed, or the target, or one of its
// endpoints, stopped answering, or it kept throttling, during the run), 130
// interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: an interrupted run reports
// the scenarios it did not finish as not run, and no failure for them.
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
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/judges"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

func main() {
	// The first signal cancels ctx and the run winds down, writing its
	// reports; the default handling is back by then, so a second one ends
	// the process at once.
	ctx, stop := cli.NotifyContext(context.Background())
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes. An incomplete run (a rule not judged: the target refused
// what a scenario needed to observe it) is not a pass: it exits 2, as a
// target that cannot be tested does.
const (
	exitPass       = verdict.ExitPass
	exitFail       = verdict.ExitFail
	exitUsage      = 2
	exitIncomplete = verdict.ExitIncomplete
)

const usageText = `usage: conformance [--target URL --profile FILE] [--judges LIST] [flags] [FILE[:LINE] ...]
       conformance generate [--target URL --profile FILE] [--seed N] [flags]   (the generated mode alone, deep)
       conformance docs --out DIR [--summary FILE]   (living documentation for partners, nothing run)

Runs the Partner Commerce API v2 conformance run. With no --target it starts
the embedded reference server and tests it with the reference profile.

One run asks every judge, with one report and one verdict: the scenarios of
features/, the generated properties and stateful sequences (--examples a
property, --seed to repeat a run), and the concurrency probe. Without
--budget every judge runs what it planned, at the pace the target allows;
with --budget the scenarios run in full and the other judges share what
they leave of it (at least a quarter), and a judge cut below what it needs
to judge its rules is not judged (INCOMPLETE, naming the budget). --judges scenarios,generated narrows the run (for CI
stages); selecting scenarios (FILE[:LINE], --tags, --rerun-failed) narrows it
to the scenarios unless --judges says otherwise.

FILE[:LINE] runs the scenarios of a feature file, or the one at LINE, as in
  conformance features/payments.feature:37

Exit codes: 0 every rule judged held, possibly with warnings (readings of the
document the target did not follow; --strict makes them failures), 1 a
scenario, property or probe case failed, 2 INCOMPLETE (rules not judged: the
target refused what their scenarios needed to observe them, such as every
gateway payment, or a gateway in front of the API answered instead of it; a
run whose answers are mostly a gateway's stops; a capability the profile
lacks is a skip, not this), or a
usage or profile error, or a target that cannot be tested (preflight, or
it, or one of its endpoints, stopped answering, or it kept throttling), 130
interrupted (Ctrl-C, SIGINT), 143 terminated (SIGTERM, as CI cancels a job);
an interrupted run reports the scenarios it did not finish as not run,
never as failed.

A target that throttles (429, or 503 with Retry-After) is waited out as it
asks and the same request sent again; --rate paces the requests,
--max-throttle-wait bounds the waiting.

A target over HTTPS with a private CA: --ca-cert FILE; with mutual TLS:
--client-cert FILE --client-key FILE; a gateway's own header: -H 'Name:
value'. In CI, --wait-for-target 60s waits for a server just started. A
profile's value written ${NAME} is taken from the environment variable NAME.

Environment:
  CONFORMANCE_TARGET   default of --target
  CONFORMANCE_PROFILE  default of --profile
  NO_COLOR             any value turns colour off

Flags:
`

// run parses the flags, prepares the target and runs the suite.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "docs" {
		return runDocs(args[1:], stdout, stderr)
	}
	if isGenerate(args) {
		return runGenerate(ctx, args[1:], getenv, stdout, stderr)
	}
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f suiteFlags
	f.register(fs, getenv)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageText)
		fs.PrintDefaults()
	}
	locations, err := cli.Parse(fs, args, "conformance", usageLine(usageText))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	if f.showVersion {
		_, _ = io.WriteString(stdout, version.String("conformance"))
		return exitPass
	}
	// Machine formats keep stdout parseable: everything for people goes to stderr.
	human := stdout
	if f.format == "junit" || f.format == "cucumber" {
		human = stderr
	}
	rerun, code, stop := f.lastRun(stderr)
	if stop {
		return code
	}
	locations = append(locations, rerun.Locations...)
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}

	fts, locations, err := selection(locations, f.tags)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}

	prof, stopRef, embedded, err := resolveTarget(ctx, f.profilePath, f.target, getenv, slog.LevelWarn, stderr)
	defer stopRef()
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	if embedded {
		fmt.Fprintf(human, "testing the embedded reference server at %s\n", prof.BaseURL)
	}
	if err := prof.Validate(); err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	tellCapabilitiesOff(human, prof)
	tellInsecure(stderr, "conformance", &f.conn)

	opts := f.options(prof, fts, locations)
	opts.Output, opts.Summary = stdout, human
	opts.Color = colorOn(f.noColor, getenv, isTerminal(stdout))
	asked, leftOut, err := f.judgesAsked(len(locations) > 0)
	if err != nil {
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		return exitUsage
	}
	jopts := f.judgesOptions(opts, asked, leftOut, embedded)
	if f.rerunFailed {
		jopts = rerunOptions(jopts, rerun)
	}
	res, err := judges.Run(ctx, jopts)
	return suiteExit(ctx, res, err, human, stderr)
}

// check says what is wrong with the flags' values, if anything.
func (f *suiteFlags) check() error {
	if f.concurrency < 1 || f.timeout <= 0 || f.examples < 1 || f.budget < 0 {
		return errors.New("--concurrency and --examples must be at least 1, --timeout positive, --budget not negative")
	}
	return f.throttling.check()
}

// judgesOptions are the options of a run of the judges asked (the others
// left out as leftOut says), the scenarios' being opts; embedded says the
// target is the embedded reference (the commands a run prints then name no
// profile).
func (f *suiteFlags) judgesOptions(opts steps.Options, asked []string, leftOut string, embedded bool) judges.Options {
	if !embedded {
		opts.ProfilePath = f.profilePath
	}
	return judges.Options{Suite: opts, Judges: asked, LeftOut: leftOut, Budget: f.budget, Generated: judges.Generated{
		Examples: f.examples, Seed: f.seed, ReportDir: f.reportDir,
	}, Probe: judges.Probe{Seed: f.seed}}
}

// judgesAsked are the judges a run asks: those of --judges, or, when the
// run selects scenarios (FILE[:LINE], --tags, --rerun-failed: selected),
// the scenarios alone, or else every judge; and why the others were left
// out ("": by --judges).
func (f *suiteFlags) judgesAsked(selected bool) ([]string, string, error) {
	if f.judges == "" && (selected || f.tags != "") {
		return []string{verdict.JudgeScenarios}, leftOutBySelection, nil
	}
	asked, err := judges.ParseJudges(f.judges)
	return asked, "", err
}

// leftOutBySelection is why a run that selects scenarios without --judges
// asks no other judge.
const leftOutBySelection = "the run selects scenarios (FILE[:LINE], --tags or --rerun-failed): --judges asks the others too"

// suiteExit is the exit code of a suite run, with the error told on stderr.
func suiteExit(ctx context.Context, res steps.Result, err error, human, stderr io.Writer) int {
	if err != nil {
		if errors.Is(err, contract.ErrGateway) {
			// The answers were mostly a gateway's: the run stopped,
			// neither passed nor failed (the summary says it too).
			fmt.Fprintf(stderr, "conformance: INCOMPLETE: %v\n", err)
			return exitIncomplete
		}
		fmt.Fprintf(stderr, "conformance: %v\n", err)
		if errors.Is(err, steps.ErrInterrupted) {
			return interrupted(ctx, human)
		}
		if errors.Is(err, steps.ErrUsage) || errors.Is(err, steps.ErrTarget) {
			return exitUsage
		}
		return exitFail
	}
	return res.Summary.ExitCode() // as summary.json says it
}

// selection is the feature files and the locations a run selects; a bad
// selection is a usage error found before any server is started.
func selection(locations []string, tags string) (*gherkin.Features, []string, error) {
	featureFS, locations, err := featuresFor(locations)
	if err != nil {
		return nil, nil, err
	}
	fts, err := steps.LoadFeatures(featureFS, tags, locations)
	return fts, locations, err
}

// tellCapabilitiesOff names each capability the profile lacks, whose
// scenarios will be skipped.
func tellCapabilitiesOff(human io.Writer, prof *profiles.Profile) {
	for _, c := range profiles.Capabilities() {
		if miss := prof.Missing(c); len(miss) > 0 {
			fmt.Fprintf(human, "capability %s is off: the profile lacks %s; its scenarios will be skipped\n", c, strings.Join(miss, ", "))
		}
	}
}

// tellInsecure says on the console, before the run, that the target's
// certificate will not be verified, when it will not; the report says it
// again.
func tellInsecure(stderr io.Writer, cmd string, conn *transport.Options) {
	if w := conn.Warning(); w != "" {
		fmt.Fprintf(stderr, "%s: %s\n", cmd, w)
	}
}

// suiteFlags are the flags of a run.
type suiteFlags struct {
	targetFlags
	tags, format, reportDir  string
	judges                   string
	concurrency, examples    int
	seed                     uint64
	budget                   time.Duration
	strict, noColor          bool
	rerunFailed, showVersion bool
}

// targetFlags say which server a run tests and how it reaches it: the
// same for the run and the generated mode.
type targetFlags struct {
	target, profilePath string
	timeout             time.Duration
	noPreflight         bool
	throttling          throttleFlags
	conn                transport.Options
}

func (f *targetFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.target, "target", getenv("CONFORMANCE_TARGET"), "base URL of the server to test; empty starts the embedded reference server")
	fs.StringVar(&f.profilePath, "profile", getenv("CONFORMANCE_PROFILE"), "target profile (YAML, see profiles/example.yaml); required with --target")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "timeout of each request, body included")
	fs.BoolVar(&f.noPreflight, "no-preflight", false, "skip the preflight check (the target answers JSON and accepts the profile's secret key and main token)")
	f.throttling.register(fs)
	f.conn.Register(fs)
}

func (f *suiteFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.targetFlags.register(fs, getenv)
	fs.StringVar(&f.tags, "tags", "", `tag expression, Cucumber's ("@payments and not @funded") or godog's ("@payments && ~@funded")`)
	fs.IntVar(&f.concurrency, "concurrency", 4, "scenarios run at once")
	fs.StringVar(&f.format, "format", "pretty", "console format: pretty, progress, junit or cucumber")
	fs.StringVar(&f.reportDir, "report-dir", "", "directory for junit.xml, cucumber.json, summary.json and report.html")
	fs.BoolVar(&f.strict, "strict", false, "count warnings (readings of the document the target did not follow) as failures")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour in the console (also off with NO_COLOR or when stdout is not a terminal)")
	fs.BoolVar(&f.rerunFailed, "rerun-failed", false, "run only the scenarios that failed in the last run with the same --report-dir (its "+gherkin.RerunFile+")")
	fs.BoolVar(&f.showVersion, "version", false, "print the suite version, spec SHA-256, commit and Go version, and exit")
	fs.StringVar(&f.judges, "judges", "", "the judges the run asks, comma-separated: "+strings.Join(judges.All, ",")+" (default all of them, or the scenarios alone when the run selects scenarios)")
	fs.DurationVar(&f.budget, "budget", 0, "the time the run may take in all (default none: every judge runs what it planned, at the pace the target allows): the scenarios run in full, the other judges share what they leave of it (at least a quarter); a judge it cuts below what it needs is not judged and the run is INCOMPLETE")
	fs.IntVar(&f.examples, "examples", 100, "generated examples per schema property; the stateful sequences are half as many")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the generated judge and the probe (0 picks one each; the run prints them)")
}

// options are the suite's options from the flags, for prof and a selection.
func (f *suiteFlags) options(prof *profiles.Profile, fts *gherkin.Features, locations []string) steps.Options {
	return steps.Options{
		Profile:         prof,
		Tags:            f.tags,
		Concurrency:     f.concurrency,
		Format:          f.format,
		ReportDir:       f.reportDir,
		RequestTimeout:  f.timeout,
		NoPreflight:     f.noPreflight,
		Strict:          f.strict,
		Locations:       locations,
		Features:        fts,
		Rate:            f.throttling.rate,
		MaxThrottleWait: f.throttling.maxWait,
		Target:          f.conn,
	}
}

// lastRun is what --rerun-failed runs again (nothing without it): see
// readRerun.
func (f *suiteFlags) lastRun(stderr io.Writer) (report.Rerun, int, bool) {
	if !f.rerunFailed {
		return report.Rerun{}, 0, false
	}
	return readRerun(f.reportDir, stderr)
}

// readRerun reads what failed, or was not judged, in the last run with
// reportDir, whichever judge ran it. stop says the run ends here, with
// code: a usage error, or nothing to run again.
func readRerun(reportDir string, stderr io.Writer) (rerun report.Rerun, code int, stop bool) {
	if reportDir == "" {
		fmt.Fprintln(stderr, "conformance: --rerun-failed needs --report-dir (the directory of the last run)")
		return rerun, exitUsage, true
	}
	lines, err := steps.ReadRerun(filepath.Join(reportDir, gherkin.RerunFile))
	if err == nil {
		rerun, err = report.ParseRerun(lines)
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformance: --rerun-failed: %v\n", err)
		return rerun, exitUsage, true
	}
	if rerun.Empty() {
		fmt.Fprintln(stderr, "conformance: --rerun-failed: the last run had no failed case and none not judged; nothing to run")
		return rerun, exitPass, true
	}
	return rerun, 0, false
}

// rerunOptions are the options of a run of what failed, or was not
// judged, in the last run: its scenarios (already selected by location),
// and each other judge's cases with the judge's seed.
func rerunOptions(o judges.Options, r report.Rerun) judges.Options {
	o.Judges, o.LeftOut = nil, "nothing of it failed, or was not judged, in the last run"
	if len(r.Locations) > 0 {
		o.Judges = append(o.Judges, verdict.JudgeScenarios)
	}
	for _, name := range judges.All {
		jr, ok := r.Judges[name]
		if !ok {
			continue
		}
		o.Judges = append(o.Judges, name)
		only := strings.Join(jr.Cases, "|")
		switch name {
		case verdict.JudgeGenerated:
			o.Generated.Seed, o.Generated.Only = jr.Seed, only
		case verdict.JudgeProbe:
			o.Probe.Seed, o.Probe.Only = jr.Seed, only
		}
	}
	return o
}

// usageLine is the first line of a help text.
func usageLine(help string) string {
	line, _, _ := strings.Cut(help, "\n")
	return line
}

// colorOn decides the console's colour: on a terminal, unless --no-color
// or NO_COLOR (https://no-color.org: any non-empty value).
func colorOn(noColor bool, getenv func(string) string, terminal bool) bool {
	return terminal && !noColor && getenv("NO_COLOR") == ""
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
