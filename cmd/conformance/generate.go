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
	"time"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/steps"
)

const generateUsage = `usage: conformance generate [--target URL --profile FILE] [flags]

Runs the generated mode: requests derived from openapi.yaml (valid ones with
varied values, and ones that break the schema in one place) and random
stateful sequences checked against a model of the document's rules. A failure
prints the seed and the shrunk reproduction (a curl line, or a Gherkin
scenario). See docs/generated-testing.md.

Before the first property, the suite's preflight request checks that the
target answers JSON and accepts the profile's credentials.

Exit codes: 0 every property passed, 1 a property failed, 2 usage or profile
error, or a target that cannot be tested (preflight), 130 interrupted
(SIGINT), 143 terminated (SIGTERM).

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
	target := fs.String("target", getenv("CONFORMANCE_TARGET"), "base URL of the server to test; empty starts the embedded reference server")
	profilePath := fs.String("profile", getenv("CONFORMANCE_PROFILE"), "target profile (YAML, see profiles/example.yaml); required with --target")
	examples := fs.Int("examples", 100, "examples per schema property; the stateful property runs half as many sequences")
	stepsFlag := fs.Int("steps", 25, "average number of operations in a stateful sequence")
	duration := fs.Duration("duration", 50*time.Second, "time budget of the whole run")
	seed := fs.Uint64("seed", 0, "seed of the run (0 picks one; the run prints it)")
	only := fs.String("only", "", "run only the properties whose name contains this text")
	strict := fs.Bool("strict", false, "turn warnings (failed readings) into failures")
	reportDir := fs.String("report-dir", "", "directory for generated-summary.json and generated-junit.xml")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request, body included")
	noPreflight := fs.Bool("no-preflight", false, "skip the preflight check (the target answers JSON and accepts the profile's secret key and main token)")
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
	if *examples < 1 || *stepsFlag < 1 || *duration <= 0 || *timeout <= 0 {
		fmt.Fprintln(stderr, "conformance generate: --examples and --steps must be at least 1, --duration and --timeout positive")
		return exitUsage
	}
	prof, stopRef, embedded, err := resolveTarget(ctx, *profilePath, *target, slog.LevelError, stderr)
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
	if !*noPreflight {
		if err := steps.Preflight(ctx, prof, nil, *timeout); err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, stdout)
			}
			fmt.Fprintf(stderr, "conformance generate: %v\n", err)
			return exitUsage
		}
	}
	profileArg := ""
	if !embedded {
		profileArg = *profilePath
	}
	res, err := generative.Run(ctx, generative.Options{
		Profile: prof, ProfilePath: profileArg, Examples: *examples, Steps: *stepsFlag, Duration: *duration, Seed: *seed,
		Strict: *strict, RequestTimeout: *timeout, Only: *only,
		Done: func(p generative.PropertyResult) { generative.PrintProperty(stdout, p) },
	})
	if err != nil {
		if errors.Is(err, generative.ErrInterrupted) {
			return interrupted(ctx, stdout)
		}
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		if errors.Is(err, generative.ErrUsage) {
			return exitUsage
		}
		return exitFail
	}
	generative.PrintSummary(stdout, res)
	if *reportDir != "" {
		if err := generative.WriteReports(*reportDir, prof.BaseURL, res); err != nil {
			fmt.Fprintf(stderr, "conformance generate: writing the reports: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "reports: %s, %s in %s\n", generative.SummaryFile, generative.JUnitFile, *reportDir)
	}
	if err := writeFeatures(stdout, *reportDir, *profilePath, prof.BaseURL, embedded, res); err != nil {
		fmt.Fprintf(stderr, "conformance generate: writing the reproduction features: %v\n", err)
		return exitFail
	}
	if res.Interrupted != "" {
		return interrupted(ctx, stdout)
	}
	if !res.OK() {
		return exitFail
	}
	return exitPass
}

// writeFeatures writes each failure that has a feature file into dir
// (generated-N.feature) and prints how to run it against the target;
// without dir it says how to get the files.
func writeFeatures(stdout io.Writer, dir, profilePath, target string, embedded bool, res generative.Result) error {
	n := 0
	for _, p := range res.Properties {
		if p.Feature == "" {
			continue
		}
		n++
		if dir == "" {
			fmt.Fprintf(stdout, "%q has a reproduction as a feature file: run again with --report-dir DIR to write it\n", p.Name())
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("generated-%d.feature", n))
		if err := os.WriteFile(path, []byte(p.Feature), 0o644); err != nil {
			return err
		}
		run := "conformance " + path
		if !embedded {
			run = fmt.Sprintf("conformance --target %s --profile %s %s", target, profilePath, path)
		}
		fmt.Fprintf(stdout, "%q as a feature file: %s\n  run it: %s\n", p.Name(), path, run)
	}
	return nil
}
