//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
// With CONFORMANCE_HOLD_WINDING_DOWN set, an interrupted run, its reports
// written, says WINDING DOWN and waits there on its stdin (which the test
// never closes) until a second signal ends it.
func TestMainProcess(t *testing.T) {
	args := os.Getenv("CONFORMANCE_MAIN_ARGS")
	if args == "" {
		t.Skip("helper process for the signal tests")
	}
	if os.Getenv("CONFORMANCE_HOLD_WINDING_DOWN") != "" {
		windingDown = func() {
			fmt.Println("WINDING DOWN")
			_, _ = io.Copy(io.Discard, os.Stdin)
		}
	}
	os.Args = append([]string{"conformance"}, strings.Fields(args)...)
	main()
	os.Exit(0)
}

// heldReference serves the reference for the first answered requests, then
// holds every later one until its client gives up on it (an interrupted
// run cancels what it has in flight): a run against it is still going when
// the test interrupts it, however slow the machine. held is closed when the
// first request is held.
func heldReference(t *testing.T, answered int) (url string, held <-chan struct{}) {
	t.Helper()
	ref := httpapitest.NewServer(t)
	var n atomic.Int64
	holding, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= int64(answered) {
			ref.Config.Handler.ServeHTTP(w, r)
			return
		}
		once.Do(func() { close(holding) })
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv.URL, holding
}

// child is main running in a child process (TestMainProcess).
type child struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    strings.Builder // its stdout so far
	errOut lockedBuilder   // its stderr
	wrote  chan struct{}   // a line more on its stdout; closed when it has closed its stdout
	exited chan error
}

// startMain runs main with args in a child process; env is added to its
// environment. Its stdin is a pipe the test never writes to.
func startMain(t *testing.T, args string, env ...string) *child {
	t.Helper()
	c := &child{wrote: make(chan struct{}, 1), exited: make(chan error, 1)}
	c.cmd = exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMainProcess$")
	c.cmd.Env = append(append(os.Environ(), "CONFORMANCE_MAIN_ARGS="+args, "NO_COLOR=1"), env...)
	stdin, err := c.cmd.StdinPipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = stdin.Close() })
	stdout, err := c.cmd.StdoutPipe()
	require.NoError(t, err)
	c.cmd.Stderr = &c.errOut
	require.NoError(t, c.cmd.Start())
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.mu.Lock()
			c.out.WriteString(sc.Text() + "\n")
			c.mu.Unlock()
			select {
			case c.wrote <- struct{}{}:
			default: // one is pending already
			}
		}
		close(c.wrote)
		c.exited <- c.cmd.Wait()
	}()
	return c
}

// lockedBuilder is a strings.Builder that a goroutine writes while another reads.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stdout is what the child wrote on its stdout so far.
func (c *child) stdout() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// waitFor waits until ready is closed or, with text, the child's stdout
// holds text; what names it in the failure.
func (c *child) waitFor(t *testing.T, what string, ready <-chan struct{}, text string) {
	t.Helper()
	for {
		if text != "" && strings.Contains(c.stdout(), text) {
			return
		}
		select {
		case <-ready:
			return
		case _, ok := <-c.wrote:
			if !ok && (text == "" || !strings.Contains(c.stdout(), text)) {
				t.Fatalf("the run ended before %s\nstdout:\n%s\nstderr:\n%s", what, c.stdout(), c.errOut.String())
			}
		case <-time.After(2 * time.Minute):
			_ = c.cmd.Process.Kill()
			t.Fatalf("no %s within 2 minutes", what)
		}
	}
}

// signal sends sig to the child.
func (c *child) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, c.cmd.Process.Signal(sig))
}

// wait waits for the child to end and returns how: its exit code, or the
// signal that ended it.
func (c *child) wait(t *testing.T) (code int, killedBy syscall.Signal) {
	t.Helper()
	select {
	case err := <-c.exited:
		if err == nil {
			return 0, 0
		}
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "%v", err)
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1, ws.Signal()
		}
		return ee.ExitCode(), 0
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		t.Fatalf("the interrupted run did not end within a minute\nstdout:\n%s", c.stdout())
		return -1, 0
	}
}

// startHeldRun runs main in a child process against heldReference (the
// first 40 requests answered) with the reference profile, args after the
// target's flags (mode before them: "" or "generate"), and returns once a
// request of the run is held: the run is surely in the middle. The
// requests' timeout is long, so that a held request is never taken for a
// dead target however long the test takes to send its signal.
func startHeldRun(t *testing.T, mode, args string, env ...string) *child {
	t.Helper()
	prof := writeFile(t, referenceProfile(t))
	target, held := heldReference(t, 40)
	c := startMain(t, strings.TrimSpace(mode+" --target "+target+" --profile "+prof+" --timeout 10m "+args), env...)
	c.waitFor(t, "a held request", held, "")
	return c
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
			c := startHeldRun(t, "", "--concurrency 4 --report-dir "+dir)
			c.signal(t, tc.sig)
			code, _ := c.wait(t)
			stdout := c.stdout()
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

// TestGenerateInterrupt: the generated mode, terminated mid-run (its
// requests held after the first 40), exits 143 with INTERRUPTED and fails
// no property.
func TestGenerateInterrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startHeldRun(t, "generate", "--seed 7 --examples 20 --report-dir "+dir)
	c.signal(t, syscall.SIGTERM)
	code, _ := c.wait(t)
	stdout := c.stdout()
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
// report file is there whole or not at all, never cut short. In the first
// case the run, its reports written, is held as it winds down (the
// windingDown hook) until the second signal has come; in the second the
// two signals come back to back, and the second may land anywhere in the
// wind-down, or be taken for the first.
func TestSecondSignalLeavesNoCutReport(t *testing.T) {
	t.Parallel()
	t.Run("while winding down", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		c := startHeldRun(t, "", "--concurrency 4 --report-dir "+dir, "CONFORMANCE_HOLD_WINDING_DOWN=1")
		c.signal(t, syscall.SIGINT)
		c.waitFor(t, "WINDING DOWN", nil, "WINDING DOWN")
		c.signal(t, syscall.SIGINT)
		code, sig := c.wait(t)
		assert.Equal(t, syscall.SIGINT, sig, "the second signal ends the process at once (exit code %d)", code)
		assert.NotContains(t, c.stdout(), "\nINTERRUPTED\n", "the run did not get to its last line")
		_, err := os.Stat(filepath.Join(dir, "summary.json"))
		require.NoError(t, err, "the reports were written before the second signal")
		assertWholeReports(t, dir)
	})
	t.Run("back to back", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		c := startHeldRun(t, "", "--concurrency 4 --report-dir "+dir)
		c.signal(t, syscall.SIGINT)
		_ = c.cmd.Process.Signal(syscall.SIGINT) // the process may have ended already
		code, sig := c.wait(t)
		if sig == 0 {
			assert.Equal(t, cli.ExitInterrupted, code, "the second signal was taken for the first")
		}
		assertWholeReports(t, dir)
	})
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
