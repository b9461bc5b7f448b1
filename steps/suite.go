// Package steps is the conformance harness of the Partner Commerce API v2: the
// godog step definitions of the features in package features, and Run, the
// one entry point that runs them against any server described by a profile.
//
// Every scenario works on its own accounts and partner transaction ids, so
// scenarios run concurrently and a target may be tested again and again.
// Every response is checked against openapi.yaml. A failure names what was
// sent, what came back, what was expected and which sentence of the API
// document is checked.
package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// Options configure one run of the suite.
type Options struct {
	// BaseURL of the target; it overrides Profile.BaseURL when set.
	BaseURL string
	// Profile holds the credentials and capabilities of the target. Required.
	Profile *profiles.Profile
	// ProfilePath is the file Profile was read from: a failure's
	// reproduction names it as where its secrets come from ("" for the
	// embedded reference's, profiles/reference.yaml).
	ProfilePath string
	// Tags is a tag expression in Cucumber's syntax ("@payments and not
	// @funded") or godog's ("@payments && ~@funded"); see internal/gherkin.
	Tags string
	// Concurrency is the number of scenarios run at once (default 4).
	Concurrency int
	// Format is the console format: pretty (default), progress, junit or cucumber.
	Format string
	// Output receives the console report and the summary (default os.Stdout).
	Output io.Writer
	// ReportDir, when set, receives junit.xml, cucumber.json and summary.json.
	ReportDir string
	// RequestTimeout bounds each request, body included (default 10s).
	RequestTimeout time.Duration
	// Features are the feature files, loaded once (gherkin.Load); default
	// the suite's own (package features).
	Features *gherkin.Features
	// HTTPClient sends the requests (default a new client with Target's
	// transport).
	HTTPClient *http.Client
	// Target is how the run reaches the target beyond its URL: the TLS it
	// speaks, the extra headers, how long it waits for the target to pass
	// the preflight check (package transport, the flags of the commands).
	Target transport.Options
	// Strict turns warnings (failed readings) into failures.
	Strict bool
	// NoPreflight skips the preflight check (see Preflight).
	NoPreflight bool
	// Locations select scenarios by file and line, as
	// "features/payments.feature:37" (the features/ folder may be left out);
	// a line of a scenario outline runs all its rows, the line of an example
	// row that row only. Empty: every scenario the tags select.
	Locations []string
	// Color colours the pretty and progress console.
	Color bool
	// Summary receives the human summary (default Output; with the junit and
	// cucumber formats, os.Stderr, so that Output stays parseable).
	Summary io.Writer
	// Rate paces the suite's requests (requests a second, across its
	// scenarios; 0: none), to stay under a target's known rate limit.
	Rate float64
	// MaxThrottleWait bounds the time the run holds off for a target that
	// throttles it (default throttle.DefaultMaxWait); past it the run stops.
	MaxThrottleWait time.Duration
	// Judges are the judges the run asks after its scenarios (the
	// generated properties, the concurrency probe; NotAsked for one the
	// run was narrowed not to ask), in turn; their cases go into the same
	// reports and the one verdict (judge.go).
	Judges []Judge
	// NoScenarios runs no scenario: the run was narrowed to its other
	// judges (--judges generated,probe).
	NoScenarios bool
	// LeftOut says why the judges the run does not ask were left out
	// (NotAsked); "" says LeftOutWithJudges.
	LeftOut string
	// Budget is the time the run aims at in all: the judges after the
	// scenarios share what the scenarios leave of it (judgeBudget). 0
	// leaves each judge its own.
	Budget time.Duration
}

// Result is what a run found, for the caller and for the writers of package
// report (which read Summary). The counts are one per scenario (one per row
// of a scenario outline) and one per case of the run's other judges, those
// of Summary.Totals. Warned counts the passed scenarios that carry warnings
// (readings the server did not follow); they are among Passed. NotJudged
// counts the scenarios whose rule the target kept them from observing.
type Result struct {
	Passed, Warned, Failed, Skipped, Undefined, NotJudged int
	Summary                                               report.Summary
}

// OK reports whether every scenario that ran passed its document checks. A
// run with warnings only is OK; in a strict run a warning is a failure, so
// it is not. A run that left rules not judged is OK but not a pass
// (Verdict).
func (r Result) OK() bool { return r.Failed == 0 && r.Undefined == 0 }

// Verdict is the run's one verdict (report.Summary.Verdict): PASS, FAIL,
// INCOMPLETE, STOPPED or INTERRUPTED.
func (r Result) Verdict() string { return r.Summary.Verdict() }

// ErrUsage marks a run that could not start because of its options or profile.
var ErrUsage = errors.New("usage error")

// Run runs the suite against the target of opts and returns what happened.
// It returns an error (wrapping ErrUsage for bad options) only when the run
// could not take place; failed scenarios are reported in the Result.
func Run(ctx context.Context, opts Options) (Result, error) {
	prof, err := opts.targetProfile()
	if err != nil {
		return Result{}, err
	}
	if opts, err = opts.withDefaults(); err != nil {
		return Result{}, err
	}
	sel, err := opts.Features.Select(opts.Tags, opts.Locations)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	hc := opts.HTTPClient
	if hc == nil {
		rt, err := opts.Target.Transport()
		if err != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		hc = &http.Client{Timeout: opts.RequestTimeout, Transport: rt}
	}
	if !opts.NoPreflight {
		if err := AwaitTarget(ctx, prof, hc, opts.RequestTimeout, &opts.Target); err != nil {
			if ctx.Err() != nil {
				return Result{}, fmt.Errorf("%w during the preflight check: %w", ErrInterrupted, context.Cause(ctx))
			}
			return Result{}, err
		}
	}
	val, err := contract.NewValidator(prof.BaseURL)
	if err != nil {
		return Result{}, err
	}
	h := &harness{
		profile:   prof,
		repro:     reproTarget{profilePath: opts.ProfilePath, conn: opts.Target, harDir: harDir(opts.ReportDir)},
		http:      hc,
		timeout:   opts.RequestTimeout,
		validator: val,
		runID:     newRunID(),
		coverage:  newCoverage(),
		locks:     map[string]*sync.Mutex{},
		strict:    opts.Strict,
		deadAfter: max(deadTargetFailures, opts.Concurrency),
		features:  opts.Features,
		selection: sel,
		runCtx:    ctx,
		gate:      throttle.New(throttle.Options{Rate: opts.Rate, MaxWait: opts.MaxThrottleWait}),
		fmt:       newFormatter(opts.Format, opts.Color, sel.Ordered()),
	}
	var abort context.CancelCauseFunc
	h.abortCtx, abort = context.WithCancelCause(context.WithoutCancel(ctx))
	defer abort(nil)
	h.abort = abort

	if opts.ReportDir != "" {
		if err := os.MkdirAll(opts.ReportDir, 0o755); err != nil {
			return Result{}, fmt.Errorf("%w: report directory: %w", ErrUsage, err)
		}
	}
	start := time.Now()
	status := 0
	if !opts.NoScenarios {
		status = runGodog(ctx, h, opts, sel.Paths)
	} else if opts.Format == "pretty" || opts.Format == "progress" {
		// godog, which makes the console, does not run: the other
		// judges' cases are printed as they end all the same.
		h.fmt.console = report.NewConsole(opts.Output, opts.Format, opts.Color)
	}
	h.fmt.flush()
	scenarios := h.scenariosRun(opts, len(sel.Paths) > 0, time.Since(start))
	judged, judgeStop, err := h.askJudges(ctx, opts, start)
	if err != nil {
		return Result{}, err
	}
	res := h.result(prof.BaseURL, start, time.Since(start), append([]Judgement{scenarios}, judged...), judgeStop)
	res.Summary.Insecure = opts.Target.Warning()
	return h.finish(opts, status, res)
}

// targetProfile is opts.Profile with opts.BaseURL, checked.
func (opts Options) targetProfile() (*profiles.Profile, error) {
	if opts.Profile == nil {
		return nil, fmt.Errorf("%w: a profile is required", ErrUsage)
	}
	prof := *opts.Profile
	if opts.BaseURL != "" {
		prof.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	}
	if err := prof.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return &prof, nil
}

// withDefaults fills in what opts leaves out and refuses an unknown format.
func (opts Options) withDefaults() (Options, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Format == "" {
		opts.Format = "pretty"
	}
	switch opts.Format {
	case "pretty", "progress", "junit", "cucumber":
	default:
		return opts, fmt.Errorf("%w: unknown format %q (pretty, progress, junit or cucumber)", ErrUsage, opts.Format)
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if opts.Summary == nil {
		opts.Summary = opts.Output
		if opts.Format == "junit" || opts.Format == "cucumber" {
			opts.Summary = os.Stderr
		}
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.Features == nil {
		fts, err := gherkin.Load(features.FS)
		if err != nil {
			return opts, fmt.Errorf("%w: reading the features: %w", ErrUsage, err)
		}
		opts.Features = fts
	}
	return opts, nil
}

// runSeq numbers the runs of the process, to name each run's formatter.
var runSeq atomic.Int64

// runGodog runs the selected scenarios and returns godog's status. godog
// reports them through the suite's formatter (formatter.go), which writes
// the console on Output as they end; the report files and the machine
// formats are written from its results once the run has settled.
func runGodog(ctx context.Context, h *harness, opts Options, paths []string) int {
	register()
	name := fmt.Sprintf("conformance-%d", runSeq.Add(1))
	runFormatters.Store(name, h.fmt)
	defer runFormatters.Delete(name)
	suite := godog.TestSuite{
		Name:                name,
		ScenarioInitializer: h.initScenario,
		Options: &godog.Options{
			Format:         formatName,
			Output:         opts.Output, // the formatter writes the pretty and progress consoles only
			Concurrency:    opts.Concurrency,
			Strict:         true,
			NoColors:       !opts.Color,
			FS:             opts.Features.FS,
			Paths:          paths,
			DefaultContext: ctx,
		},
	}
	return suite.Run()
}

// finish judges godog's status, completes res with the section 7 matrix,
// writes the reports and the summary, and returns the run's error: an
// interruption or abort, or godog failing to run the features at all.
func (h *harness) finish(opts Options, status int, res Result) (Result, error) {
	aborted := context.Cause(h.abortCtx)
	if st := res.Summary.Stopped; st != nil && st.Cause == verdict.StopInterrupted {
		aborted = fmt.Errorf("%w: %s", ErrInterrupted, st.Banner())
	}
	if eps := res.Summary.StoppedEndpoints; aborted == nil && len(eps) > 0 {
		aborted = fmt.Errorf("%w: %s", ErrTarget, report.EndpointBanners(eps)) // the run went on without them
	}
	if status != 0 && res.Failed == 0 && res.Undefined == 0 && aborted == nil {
		return res, fmt.Errorf("%w: godog could not run the features (status %d)", ErrUsage, status)
	}
	res.Summary.Section7 = h.matrix(res.Summary.Scenarios)
	if err := writeReports(opts, h.profile, res.Summary); err != nil {
		return res, err
	}
	if err := h.har.err(); err != nil {
		return res, err
	}
	if c := h.fmt.console; c != nil {
		c.Finish(res.Summary)
	}
	report.PrintSummary(opts.Summary, res.Summary)
	report.PrintReportFiles(opts.Summary, opts.ReportDir)
	return res, aborted
}

// writeReports writes the report files of a run and the machine formats on
// Output, each by its writer in package report, from the run's summary.
func writeReports(opts Options, prof *profiles.Profile, sum report.Summary) error {
	if dir := opts.ReportDir; dir != "" {
		if err := writeReportFiles(dir, opts.Features, prof, sum); err != nil {
			return err
		}
	}
	switch opts.Format {
	case "junit":
		return report.WriteJUnit(opts.Output, opts.Features, sum)
	case "cucumber":
		return report.WriteCucumber(opts.Output, sum)
	}
	return nil
}

// writeReportFiles writes summary.json, junit.xml, cucumber.json, the rerun
// file and the page into dir, each whole or not at all (atomicfile).
func writeReportFiles(dir string, fts *gherkin.Features, prof *profiles.Profile, sum report.Summary) error {
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"summary.json", func(w io.Writer) error { return report.WriteSummary(w, sum) }},
		{"junit.xml", func(w io.Writer) error { return report.WriteJUnit(w, fts, sum) }},
		{"cucumber.json", func(w io.Writer) error { return report.WriteCucumber(w, sum) }},
		{gherkin.RerunFile, func(w io.Writer) error { return report.WriteRerun(w, sum) }},
		{report.FileHTMLReport, func(w io.Writer) error { return report.WriteHTMLReport(w, fts, sum, prof) }},
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	return nil
}
