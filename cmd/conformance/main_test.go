package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/version"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

func noEnv(string) string { return "" }

// referenceProfile returns the text of profiles/reference.yaml.
func referenceProfile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../profiles/reference.yaml")
	require.NoError(t, err)
	return string(data)
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "profile.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func faultyReference(t *testing.T, faults ...reference.Fault) string {
	t.Helper()
	srv := httpapitest.NewServer(t, faults...)
	return srv.URL
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	ref := referenceProfile(t)
	cases := []struct {
		name   string
		args   func(t *testing.T) []string
		code   int
		stderr string
	}{
		{"embedded reference, a tag subset", func(*testing.T) []string {
			return []string{"--tags", "@customers,@payment-status", "--format", "progress"}
		}, exitPass, ""},
		{"faulty server", func(t *testing.T) []string {
			url := faultyReference(t, reference.FaultMessageTypo)
			return []string{"--target", url, "--profile", writeFile(t, ref), "--tags", "@payments", "--format", "progress"}
		}, exitFail, ""},
		{"profile lacks a required key", func(t *testing.T) []string {
			text := strings.Replace(ref, "main_token: tok-nusantara-main\n", "", 1)
			return []string{"--target", "http://127.0.0.1:1", "--profile", writeFile(t, text)}
		}, exitUsage, "main_token"},
		{"profile has an unknown key", func(t *testing.T) []string {
			return []string{"--target", "http://127.0.0.1:1", "--profile", writeFile(t, ref+"secret_kee: typo\n")}
		}, exitUsage, "secret_kee"},
		{"profile cannot be read", func(t *testing.T) []string {
			return []string{"--target", "http://127.0.0.1:1", "--profile", filepath.Join(t.TempDir(), "absent.yaml")}
		}, exitUsage, "absent.yaml"},
		{"target without a profile", func(*testing.T) []string {
			return []string{"--target", "http://127.0.0.1:1"}
		}, exitUsage, "--profile"},
		{"unknown format", func(*testing.T) []string {
			return []string{"--format", "html", "--tags", "@payment-methods"}
		}, exitUsage, "html"},
		{"unknown flag", func(*testing.T) []string { return []string{"--nope"} }, exitUsage, "nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args(t), noEnv, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			assert.Contains(t, stderr.String(), tc.stderr)
			if tc.code == exitPass {
				assert.Contains(t, stdout.String(), "RESULT: PASS")
			}
			if tc.code == exitFail {
				assert.Contains(t, stdout.String(), "RESULT: FAIL")
			}
		})
	}
}

func TestRunWritesReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--tags", "@payment-methods", "--report-dir", dir, "--format", "junit"}, noEnv, &stdout, &stderr)
	require.Equal(t, exitPass, code, stderr.String())
	for _, f := range []string{"junit.xml", "cucumber.json", "summary.json", "report.html"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
}

// TestVersionAndHelp: --version prints the suite version, the
// spec digest, the commit and the Go version; --help exits 0 and names the
// environment variables.
func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitPass, run(context.Background(), []string{"--version"}, noEnv, &stdout, &stderr))
	for _, part := range []string{"suite version: " + version.Suite, "spec sha256:   " + version.SpecSHA256(), "commit:", runtime.Version()} {
		assert.Contains(t, stdout.String(), part)
	}
	stdout.Reset()
	require.Equal(t, exitPass, run(context.Background(), []string{"--help"}, noEnv, &stdout, &stderr))
	for _, part := range []string{"CONFORMANCE_TARGET", "CONFORMANCE_PROFILE", "NO_COLOR", "-no-preflight", "Exit codes", "conformance generate", "130", "143"} {
		assert.Contains(t, stderr.String(), part)
	}
}

// TestPreflightFailureIsOneMessageAndExit2: a closed port is one
// line on stderr and exit 2, at once; --no-preflight runs the scenarios,
// which stop early on the dead target, also exit 2.
func TestPreflightFailureIsOneMessageAndExit2(t *testing.T) {
	t.Parallel()
	profile := writeFile(t, referenceProfile(t))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--target", "http://127.0.0.1:1", "--profile", profile}, noEnv, &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	assert.Contains(t, stderr.String(), "preflight")
	assert.Empty(t, stdout.String())

	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"--target", "http://127.0.0.1:1", "--profile", profile, "--no-preflight", "--format", "progress"}, noEnv, &stdout, &stderr)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "in a row")
	assert.Contains(t, stdout.String(), "RESULT: STOPPED: 0 passed (0 with warnings), 0 failed")
}

// TestFlagsAfterLocationAndBadFlags: flags may follow FILE:LINE; a bad flag
// is the error, the usage line and "see --help", not the whole help.
func TestFlagsAfterLocationAndBadFlags(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"features/payment_methods.feature:7", "--format", "progress", "--concurrency", "1"}, noEnv, &stdout, &stderr)
	require.Equal(t, exitPass, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "RESULT: PASS: 1 passed")

	for _, args := range [][]string{
		{"features/payment_methods.feature:7", "--stirct"},
		{"generate", "--seeed", "3"},
	} {
		stdout.Reset()
		stderr.Reset()
		assert.Equal(t, exitUsage, run(context.Background(), args, noEnv, &stdout, &stderr), "%q", args)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		require.Len(t, lines, 3, stderr.String())
		assert.Contains(t, lines[0], "flag provided but not defined")
		assert.True(t, strings.HasPrefix(lines[1], "usage: conformance"), lines[1])
		assert.Contains(t, lines[2], "--help")
	}
}
