package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/steps/report"
)

// TestMachineFormatsOnStdoutParse: with --format junit or
// cucumber, stdout is the report and nothing else; the human summary is on
// stderr.
func TestMachineFormatsOnStdoutParse(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"junit", "cucumber"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--tags", "@payment-methods or @payment-status", "--format", format}, noEnv, &stdout, &stderr)
			require.Equal(t, exitPass, code, stderr.String())
			assert.NotContains(t, stdout.String(), "RESULT")
			assert.NotContains(t, stdout.String(), "testing the embedded")
			switch format {
			case "junit":
				var v struct {
					XMLName xml.Name `xml:"testsuites"`
					Tests   int      `xml:"tests,attr"`
				}
				dec := xml.NewDecoder(&stdout)
				require.NoError(t, dec.Decode(&v))
				assert.Positive(t, v.Tests)
				var rest struct{}
				assert.ErrorIs(t, dec.Decode(&rest), io.EOF, "nothing after the report")
			case "cucumber":
				var v []map[string]any
				require.NoError(t, json.Unmarshal(stdout.Bytes(), &v), stdout.String())
				assert.NotEmpty(t, v)
			}
			assert.Contains(t, stderr.String(), "RESULT: PASS")
			assert.Contains(t, stderr.String(), "testing the embedded reference server")
		})
	}
}

// TestRerunFailed: --rerun-failed runs exactly the scenarios
// the last run with the same --report-dir failed.
func TestRerunFailed(t *testing.T) {
	t.Parallel()
	url := faultyReference(t, reference.FaultMessageTypo)
	profile := writeFile(t, referenceProfile(t))
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--target", url, "--profile", profile, "--tags", "@payments", "--format", "progress", "--report-dir", dir}, noEnv, &stdout, &stderr)
	require.Equal(t, exitFail, code, stderr.String())
	var first report.Summary
	readJSON(t, filepath.Join(dir, "summary.json"), &first)
	require.Positive(t, first.Totals.Failed)
	require.Positive(t, first.Totals.Passed)

	stdout.Reset()
	code = run(context.Background(), []string{"--target", url, "--profile", profile, "--format", "progress", "--report-dir", dir, "--rerun-failed"}, noEnv, &stdout, &stderr)
	require.Equal(t, exitFail, code, stderr.String())
	var second report.Summary
	readJSON(t, filepath.Join(dir, "summary.json"), &second)
	assert.Equal(t, first.Totals.Failed, second.Totals.Failed)
	assert.Zero(t, second.Totals.Passed, "only the failures run again")
	assert.Len(t, second.Scenarios, first.Totals.Failed)

	code = run(context.Background(), []string{"--rerun-failed"}, noEnv, &stdout, &stderr)
	assert.Equal(t, exitUsage, code, "--rerun-failed needs --report-dir")
}

// TestLocationArguments: a FILE:LINE argument runs that
// scenario only; an unknown file is exit 2.
func TestLocationArguments(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--format", "progress", "features/payment_methods.feature"}, noEnv, &stdout, &stderr)
	require.Equal(t, exitPass, code, stderr.String())
	assert.Contains(t, stdout.String(), "RESULT: PASS")
	stderr.Reset()
	code = run(context.Background(), []string{"features/nope.feature:3"}, noEnv, &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "nope.feature")
}

// TestTagExpressionErrorsExit2: never a panic; exit 2 naming
// the expression, or "no scenario matches".
func TestTagExpressionErrorsExit2(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		"@payments &&":               `"@payments &&"`,
		"@payments and (@funded":     `"@payments and (@funded"`,
		"@payments and @no-such-tag": "no scenario matches",
	} {
		t.Run(expr, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--tags", expr}, noEnv, &stdout, &stderr)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr.String(), want)
			assert.NotContains(t, stderr.String(), "goroutine", "no stack trace")
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one message, before any server starts: %s", stderr.String())
			assert.Empty(t, stdout.String())
		})
	}
}

// TestNoColorWhenNotATerminal: colour needs a terminal, and
// NO_COLOR or --no-color turn it off.
func TestNoColorWhenNotATerminal(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--tags", "@payment-methods"}, noEnv, &stdout, &stderr)
	require.Equal(t, exitPass, code, stderr.String())
	assert.NotContains(t, stdout.String(), "\x1b[")
	assert.False(t, isTerminal(&stdout))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	assert.False(t, isTerminal(f), "a file is not a terminal")
	assert.False(t, colorOn(false, func(k string) string { return map[string]string{"NO_COLOR": "1"}[k] }, true))
	assert.False(t, colorOn(true, noEnv, true))
	assert.False(t, colorOn(false, noEnv, false))
	assert.True(t, colorOn(false, noEnv, true))
}

// TestMakeConformanceReportsTheRunnersExitCode: GNU make can
// only exit 0 or 2, so `make conformance` names the runner's own code; a
// closed port is one preflight error, quickly.
func TestMakeConformanceReportsTheRunnersExitCode(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is needed for this test: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "make", "-s", "-C", "../..", "bin/conformance")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))

	cmd := exec.CommandContext(ctx, "make", "-s", "-C", "../..", "conformance", "TARGET=http://127.0.0.1:1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "make must fail: %v", err)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, stderr.String(), "preflight")
	assert.Contains(t, stderr.String(), "conformance exit code 2")
	assert.Equal(t, 1, strings.Count(stderr.String(), "preflight"), stderr.String())
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}
