//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// TestMainProcess is not a test: the signal tests run the test binary again
// with CONFORMANCE_MAIN_ARGS set, and this calls main with those arguments.
func TestMainProcess(t *testing.T) {
	args := os.Getenv("CONFORMANCE_MAIN_ARGS")
	if args == "" {
		t.Skip("helper process for the signal tests")
	}
	os.Args = append([]string{"conformance"}, strings.Fields(args)...)
	main()
	os.Exit(0)
}

// slowReference serves the reference, each answer delay late, so that a
// run is still going when the test interrupts it.
func slowReference(t *testing.T, delay time.Duration) string {
	t.Helper()
	ref := httpapitest.NewServer(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		ref.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// startMain runs main with args in a child process and returns its exit
// channel once a line of its stdout contains ready (with ready empty, after
// three seconds).
func startMain(t *testing.T, args, ready string) (*exec.Cmd, *strings.Builder, <-chan error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMainProcess$")
	cmd.Env = append(os.Environ(), "CONFORMANCE_MAIN_ARGS="+args, "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	var mu sync.Mutex
	out := &strings.Builder{}
	seen := make(chan struct{})
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		once := false
		for sc.Scan() {
			mu.Lock()
			out.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !once && ready != "" && strings.Contains(sc.Text(), ready) {
				once = true
				close(seen)
			}
		}
		exited <- cmd.Wait()
	}()
	wait := time.After(60 * time.Second)
	if ready == "" {
		wait = time.After(3 * time.Second)
	}
	select {
	case <-seen:
	case <-wait:
		if ready != "" {
			_ = cmd.Process.Kill()
			t.Fatalf("no %q within 60s", ready)
		}
	case err := <-exited:
		t.Fatalf("the run ended before %q: %v\nstdout:\n%s\nstderr:\n%s", ready, err, out.String(), errOut.String())
	}
	return cmd, out, exited
}

// exitCode waits for the child and returns its exit code.
func exitCode(t *testing.T, exited <-chan error) int {
	t.Helper()
	select {
	case err := <-exited:
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v", err)
		return ee.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted run did not end within 30s")
		return -1
	}
}

// TestInterruptIsNotAFailure: Ctrl-C (SIGINT) or a CI system's SIGTERM in
// the middle of a run against a healthy server ends it with 130 or 143,
// prints INTERRUPTED, reports the unfinished scenarios as not run, and
// writes no failure into junit.xml or rerun.txt.
func TestInterruptIsNotAFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, cli.ExitInterrupted}, {syscall.SIGTERM, cli.ExitTerminated}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			prof := writeFile(t, referenceProfile(t))
			cmd, out, exited := startMain(t, "--target "+slowReference(t, 150*time.Millisecond)+" --profile "+prof+" --concurrency 4 --report-dir "+dir, "PASSED")
			require.NoError(t, cmd.Process.Signal(tc.sig))
			code := exitCode(t, exited)
			stdout := out.String()
			assert.Equal(t, tc.code, code, stdout)
			assert.Contains(t, stdout, "\nINTERRUPTED\n")
			assert.NotContains(t, stdout, "FAILED", "nothing failed")
			assert.NotContains(t, stdout, "in a row", "an interruption is not a dead target")

			junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
			require.NoError(t, err)
			assert.NotContains(t, string(junit), "<failure")
			assert.NotContains(t, string(junit), "<error")
			assert.Contains(t, string(junit), "not run")
			rerun, err := os.ReadFile(filepath.Join(dir, gherkin.RerunFile))
			require.NoError(t, err)
			assert.Empty(t, strings.TrimSpace(string(rerun)))

			var sum report.Summary
			raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &sum))
			require.NotNil(t, sum.Stopped)
			assert.Equal(t, verdict.StopInterrupted, sum.Stopped.Cause)
			assert.Positive(t, sum.Stopped.NotRun)
			assert.Zero(t, sum.Totals.Failed)
			page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
			require.NoError(t, err)
			assert.Contains(t, string(page), "INTERRUPTED after")
		})
	}
}

// TestGenerateInterrupt: the generated mode, terminated mid-run, exits 143
// with INTERRUPTED and fails no property.
func TestGenerateInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prof := writeFile(t, referenceProfile(t))
	cmd, out, exited := startMain(t, "generate --target "+slowReference(t, 20*time.Millisecond)+" --profile "+prof+" --seed 7 --examples 20 --report-dir "+dir, "ok  ")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	code := exitCode(t, exited)
	stdout := out.String()
	assert.Equal(t, cli.ExitTerminated, code, stdout)
	assert.Contains(t, stdout, "\nINTERRUPTED\n")
	assert.Contains(t, stdout, "skip ")
	assert.Contains(t, stdout, " 0 failed, ")
	assert.NotContains(t, stdout, "FAIL ")
	junit, err := os.ReadFile(filepath.Join(dir, "generated-junit.xml"))
	require.NoError(t, err)
	assert.NotContains(t, string(junit), "<failure")
	assert.Contains(t, string(junit), "<skipped")
}

// TestSecondSignalLeavesNoCutReport: a second Ctrl-C ends the run at once
// (the process dies of the signal) with what was already written: each
// report file is there whole or not at all, never cut short. The second
// signal comes 0.3 s after the first, and, so that it surely lands while
// the run winds down, 0.05 s after it.
func TestSecondSignalLeavesNoCutReport(t *testing.T) {
	t.Parallel()
	for _, after := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			prof := writeFile(t, referenceProfile(t))
			cmd, _, exited := startMain(t, "--target "+slowReference(t, 150*time.Millisecond)+" --profile "+prof+" --concurrency 4 --report-dir "+dir, "PASSED")
			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			time.Sleep(after)
			second := cmd.Process.Signal(syscall.SIGINT)
			code := exitCode(t, exited)
			if after < 100*time.Millisecond {
				require.NoError(t, second, "the run was still winding down")
				assert.Equal(t, -1, code, "the second signal ends the process at once")
			}
			assertWholeReports(t, dir)
		})
	}
}

// assertWholeReports: every report file in dir is absent or whole.
func assertWholeReports(t *testing.T, dir string) {
	t.Helper()
	read := func(name string) ([]byte, bool) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, false
		}
		require.NoError(t, err)
		return data, true
	}
	for _, name := range []string{"cucumber.json", "summary.json"} {
		if data, ok := read(name); ok {
			assert.True(t, json.Valid(data), "%s is cut short (%d bytes)", name, len(data))
		}
	}
	if data, ok := read("junit.xml"); ok {
		assert.NoError(t, xml.Unmarshal(data, new(struct{})), "junit.xml is cut short (%d bytes)", len(data))
	}
	if data, ok := read(report.FileHTMLReport); ok {
		assert.True(t, strings.HasSuffix(strings.TrimSpace(string(data)), "</html>"), "report.html is cut short (%d bytes)", len(data))
	}
}
