package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/partnercommerce/conformance/generative"
)

const generateUsage = `usage: conformance generate [--target URL --profile FILE] [flags]

Runs the generated mode: requests derived from openapi.yaml (valid ones with
varied values, and ones that break the schema in one place) and random
stateful sequences checked against a model of the document's rules. A failure
prints the seed and the shrunk reproduction (a curl line, or a Gherkin
scenario). See docs/generated-testing.md.

Exit codes: 0 every property passed, 1 a property failed, 2 usage or profile
error.

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
	steps := fs.Int("steps", 25, "average number of operations in a stateful sequence")
	duration := fs.Duration("duration", 50*time.Second, "time budget of the whole run")
	seed := fs.Uint64("seed", 0, "seed of the run (0 picks one; the run prints it)")
	only := fs.String("only", "", "run only the properties whose name contains this text")
	strict := fs.Bool("strict", false, "turn warnings (failed readings) into failures")
	reportDir := fs.String("report-dir", "", "directory for generated-summary.json and generated-junit.xml")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request, body included")
	fs.Usage = func() {
		fmt.Fprint(stderr, generateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "conformance generate: unexpected arguments %q\n", fs.Args())
		return exitUsage
	}
	if *examples < 1 || *steps < 1 || *duration <= 0 || *timeout <= 0 {
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
	res, err := generative.Run(ctx, generative.Options{
		Profile: prof, Examples: *examples, Steps: *steps, Duration: *duration, Seed: *seed,
		Strict: *strict, RequestTimeout: *timeout, Only: *only,
	})
	if err != nil {
		fmt.Fprintf(stderr, "conformance generate: %v\n", err)
		if errors.Is(err, generative.ErrUsage) {
			return exitUsage
		}
		return exitFail
	}
	generative.Print(stdout, res)
	if *reportDir != "" {
		if err := generative.WriteReports(*reportDir, prof.BaseURL, res); err != nil {
			fmt.Fprintf(stderr, "conformance generate: writing the reports: %v\n", err)
			return exitFail
		}
	}
	if !res.OK() {
		return exitFail
	}
	return exitPass
}
