package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/steps"
)

const generateUsage = `usage: conformance generate [--target URL --profile FILE] [flags]

Runs the generated mode: requests derived from openapi.yaml (valid ones with
varied values, and ones that break the schema in one place) and random
stateful sequences checked against a model of the document's rules. A failure
prints the seed and the shrunk reproduction (a curl line, or a Gherkin
scenario). See docs/generated-testing.md.

Before the first property, the suite's preflight request checks that the
target answers JSON and accepts the profile's credentials (again and again
for up to --wait-for-target). The TLS flags, -H and the profile's ${NAME}
values are the suite's.

Exit codes: 0 every property passed, 1 a property failed, 2 INCOMPLETE (a
property not judged: a gateway in front of the API answered instead of it,
or the target's throttling cut it short; a run whose answers are mostly a
gateway's stops), or a usage or profile error, or a target that cannot be
tested (preflight, or it kept throttling past --max-throttle-wait), 130
interrupted (SIGINT), 143 terminated (SIGTERM). A throttled answer (429, or
503 with Retry-After) is waited out and the same request sent again; a
gateway's page (HTML, or text with a proxy's Server header, such as nginx's
503 without Retry-After) is said as the gateway's, never blamed on the API,
and gets no reproduction.

Flags:
`

// isGenerate reports whether args ask for the generated mode.
func isGenerate(args []string) bool {
	return len(args) > 0 && (args[0] == "generate" || args[0] == "--generate" || args[0] == "-generate")
}

// runGenerate is the generated mode of the command.
func runGenerate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f generateFlags
	f.register(fs, getenv)
	fs.Usage = func() {
		fmt.Fprint(stderr, generateUsage)
		fs.PrintDefaults()
	}
	rest, err := cli.Parse(fs, args, "conformance generate", usageLine(generateUsage))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "conformance generate: unexpected arguments %q\n%s\n", rest, usageLine(generateUsage))
		return exitUsage
	}
	if f.examples < 1 || f.steps < 1 || f.duration <= 0 || f.timeout <= 0 {
		fmt.Fprintln(stderr, "conformance generate: --examples and --steps must be at least 1, --duration and --timeout positive")
		return exitUsage
	}
	if err := f.throttling.check(); err != nil {
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		return exitUsage
	}
	prof, stopRef, embedded, err := resolveTarget(ctx, f.profilePath, f.target, getenv, slog.LevelError, stderr)
	defer stopRef()
	if err != nil {
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		return exitUsage
	}
	if embedded {
		fmt.Fprintf(stdout, "generated mode against the embedded reference server at %s\n", prof.BaseURL)
	}
	if err := prof.Validate(); err != nil {
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		return exitUsage
	}
	rt, err := f.conn.Transport()
	if err != nil {
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		return exitUsage
	}
	hc := &http.Client{Transport: rt}
	tellInsecure(stderr, "conformance generate", &f.conn)
	if !f.noPreflight {
		if err := steps.AwaitTarget(ctx, prof, hc, f.timeout, &f.conn); err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, stdout)
			}
			fmt.Fprintf(stderr, "conformance generate: %v\n", err)
			return exitUsage
		}
	}
	profileArg := ""
	if !embedded {
		profileArg = f.profilePath
	}
	opts := generative.Options{
		Profile: prof, ProfilePath: profileArg, Conn: f.conn, Examples: f.examples, Steps: f.steps, Duration: f.duration, Seed: f.seed,
		Strict: f.strict, RequestTimeout: f.timeout, Only: f.only, Rate: f.throttling.rate, MaxThrottleWait: f.throttling.maxWait,
		HTTPClient: hc, Done: func(p generative.PropertyResult) { generative.PrintProperty(stdout, p) },
	}
	res, err := generative.Run(ctx, opts)
	res.Insecure = f.conn.Warning()
	return f.finish(ctx, opts, res, err, stdout, stderr)
}

// generateFlags are the flags of the generated mode.
type generateFlags struct {
	targetFlags
	only, reportDir string
	examples, steps int
	duration        time.Duration
	seed            uint64
	strict          bool
}

func (f *generateFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	f.targetFlags.register(fs, getenv)
	fs.IntVar(&f.examples, "examples", 100, "examples per schema property; the stateful property runs half as many sequences")
	fs.IntVar(&f.steps, "steps", 25, "average number of operations in a stateful sequence")
	fs.DurationVar(&f.duration, "duration", 50*time.Second, "time budget of the whole run")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the run (0 picks one; the run prints it)")
	fs.StringVar(&f.only, "only", "", "run only the properties whose name contains this text")
	fs.BoolVar(&f.strict, "strict", false, "turn warnings (failed readings) into failures")
	fs.StringVar(&f.reportDir, "report-dir", "", "directory for generated-summary.json and generated-junit.xml")
}

// finish reports a generated run (the summary, the report files, the
// reproduction features) and returns its exit code.
func (f *generateFlags) finish(ctx context.Context, opts generative.Options, res generative.Result, err error, stdout, stderr io.Writer) int {
	if err != nil {
		if errors.Is(err, generative.ErrInterrupted) {
			return interrupted(ctx, stdout)
		}
		if errors.Is(err, contract.ErrGateway) {
			// A gateway answered the run's preparation, not the API.
			fmt.Fprintf(stderr, "conformance generate: INCOMPLETE: %v\n", err)
			return exitIncomplete
		}
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		if errors.Is(err, generative.ErrUsage) || errors.Is(err, throttle.ErrKeptThrottling) {
			return exitUsage
		}
		return exitFail
	}
	generative.PrintSummary(stdout, res)
	if f.reportDir != "" {
		if err := generative.WriteReports(f.reportDir, opts.Profile.BaseURL, res); err != nil {
			fmt.Fprintf(stderr, "conformance generate: writing the reports: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "reports: %s, %s in %s\n", generative.SummaryFile, generative.JUnitFile, f.reportDir)
	}
	if err := writeFeatures(stdout, f.reportDir, opts, res); err != nil {
		fmt.Fprintf(stderr, "conformance generate: writing the reproduction features: %v\n", err)
		return exitFail
	}
	if res.Interrupted != "" {
		return interrupted(ctx, stdout)
	}
	if res.Stopped != "" && res.Failed() == 0 {
		return exitUsage // the target cannot be tested: it kept throttling
	}
	if res.Failed() > 0 {
		return exitFail
	}
	if res.Incomplete != "" || res.NotJudged() > 0 {
		return exitIncomplete // a gateway answered, or the target's throttling left properties not judged
	}
	if !res.OK() {
		return exitFail
	}
	return exitPass
}

// writeFeatures writes each failure that has a feature file into the
// report directory (generated-N.feature) and prints how to run it against
// the target; without the directory it says how to get the files.
func writeFeatures(stdout io.Writer, dir string, opts generative.Options, res generative.Result) error {
	if dir == "" {
		for _, p := range res.Properties {
			if p.Feature != "" {
				fmt.Fprintf(stdout, "%q has a reproduction as a feature file: run again with --report-dir DIR to write it\n", p.Name())
			}
		}
		return nil
	}
	repros, err := generative.WriteFeatures(dir, opts, res)
	for _, r := range repros {
		fmt.Fprintf(stdout, "%q as a feature file: %s\n  run it: %s\n", r.Property, r.Path, r.Run)
		if r.HAR != "" {
			fmt.Fprintf(stdout, "  its requests and answers (HAR, for a browser's network panel): %s\n", r.HAR)
		}
	}
	return err
}
