//go:build unix

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/browsertest"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// The long chaos run (make chaos): 25 s of retried payments against a
// reference SIGKILLed every few seconds, with and without --state.
var (
	chaos    = flag.Bool("chaos", false, "run the full chaos test (make chaos): about 30 s")
	chaosOut = flag.String("chaos-out", "", "with -chaos: keep the runs' reports in DIR/durable, DIR/durable-create, DIR/in-memory and DIR/disk-full")
	// chaosDisk forces the disk-full case's disk: "file" runs it on a
	// referencetest.Disk even where a tmpfs could be mounted.
	chaosDisk = flag.String("chaos-disk", "", "with -chaos: the disk-full case's disk: tmpfs (the default, when this process may mount one) or file")
)

// TestChaosOneKill is the short version of make chaos that every `make
// test` runs: one SIGKILL of the reference mid-run. With --state nothing
// acknowledged may be lost or doubled; without it (everything in memory)
// the run must fail and its verdict must lead with the lost writes.
func TestChaosOneKill(t *testing.T) {
	t.Parallel()
	bin := buildReference(t)
	load := chaosLoad{rate: 100, duration: 3 * time.Second, nemesis: "at 1500ms shell name kill-9: kill -KILL $(cat %s)"}
	t.Run("in memory: lost writes named", func(t *testing.T) {
		t.Parallel()
		out, err := chaosRun(t, bin, false, load, t.TempDir())
		require.ErrorIs(t, err, errFailed, out)
		lead := leadingLines(out)
		require.NotEmpty(t, lead, out)
		// The fault fires at 1.5 s or, on a loaded machine, later.
		assert.Regexp(t, `^  1\. [0-9,]+ created payments were lost: acknowledged as created, then payment status did not find them; [0-9,]+ before or during fault 1 \(kill-9 at (1\.[5-9]|[2-9])[0-9.]* s\) \(e\.g\. \S+, \S+, \S+\)$`, lead[0], out)
		assert.Regexp(t, `\n     so [0-9,]+ wallets fell by less than the created payments took: as if the lost payments had taken nothing`, out, "the wallets forgot what the lost writes took")
		assert.Len(t, lead, 1, "one finding: the lost writes\n%s", out)
	})
	t.Run("with --state: nothing lost or doubled", func(t *testing.T) {
		t.Parallel()
		requireStateFlag(t, bin)
		out, err := chaosRun(t, bin, true, load, t.TempDir())
		requireNoFailure(t, out, "", err)
		assert.Regexp(t, `Faults +1 `, out)
	})
}

// TestChaos is make chaos: the reference killed every 4 s for 25 s under
// retried payments, with and without --state, and under payments sent
// once (create) with --state; and, with --state on a 256 KiB disk that a
// filler takes and frees, payments sent once for 15 s
// (chaos_diskfull_test.go).
func TestChaos(t *testing.T) {
	if !*chaos {
		t.Skip("the full chaos run takes about 30 s: make chaos (go test -run '^TestChaos$' ./cmd/loadtest/ -chaos)")
	}
	bin := buildReference(t)
	load := chaosLoad{rate: 200, duration: 25 * time.Second, nemesis: "every 4s from 2s shell name kill-9: kill -KILL $(cat %s)"}
	dir := func(name string) string {
		if *chaosOut == "" {
			return t.TempDir()
		}
		return filepath.Join(*chaosOut, name)
	}
	t.Run("with --state", func(t *testing.T) {
		t.Parallel()
		requireStateFlag(t, bin)
		out, err := chaosRun(t, bin, true, load, dir("durable"))
		t.Logf("with --state:\n%s", head(out, 12))
		require.NoError(t, err, out)
	})
	t.Run("with --state, no retries", func(t *testing.T) {
		t.Parallel()
		create := load
		create.scenario = "create"
		out, err := chaosRun(t, bin, true, create, dir("durable-create"))
		t.Logf("with --state, scenario create:\n%s", head(out, 12))
		require.NoError(t, err, out)
	})
	t.Run("with --state on a disk that fills and frees", func(t *testing.T) {
		t.Parallel()
		out := chaosDiskFull(t, bin, dir("disk-full"))
		t.Logf("with --state on a full disk, scenario create:\n%s", head(out, 12))
	})
	t.Run("in memory", func(t *testing.T) {
		t.Parallel()
		out, err := chaosRun(t, bin, false, load, dir("in-memory"))
		t.Logf("in memory:\n%s", head(out, 12))
		require.ErrorIs(t, err, errFailed, out)
		assert.Contains(t, leadingLines(out)[0], "created payments were lost", out)
	})
}

type chaosLoad struct {
	scenario string // retry when empty
	rate     int
	duration time.Duration
	nemesis  string // with %s for the file holding the reference's pid
}

// chaosRun runs the reference under a supervisor that restarts it
// whenever it dies, and a retry load test against it whose nemesis kills
// it; it returns the load test's report and error.
func chaosRun(t *testing.T, bin string, durable bool, load chaosLoad, out string) (string, error) {
	t.Helper()
	work := t.TempDir()
	pidFile := filepath.Join(work, "reference.pid")
	addr := freeAddr(t)
	args := []string{"--addr", addr, "--log-level", "error"}
	if durable {
		args = append(args, "--state", filepath.Join(work, "state"))
	}
	stop := supervise(t, bin, args, pidFile)
	defer stop()
	waitListening(t, addr)
	load.nemesis = fmt.Sprintf(load.nemesis, pidFile)
	return loadRun(t, addr, load, out)
}

// loadRun runs the load test against the reference at addr, with
// load.nemesis as it is, writing to out; it returns the load test's report
// and error.
func loadRun(t *testing.T, addr string, load chaosLoad, out string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{
		"--target", "http://" + addr, "--scenario", cmp.Or(load.scenario, "retry"), "--quiet",
		"--rate", strconv.Itoa(load.rate), "--duration", load.duration.String(),
		// Answers lost to a fault are the point: the run judges what was
		// lost or doubled, not how many answers were.
		"--retries", "8", "--retry-timeout", "1s", "--retry-backoff", "50ms", "--max-uncertain", "100",
		"--nemesis", load.nemesis, "--out", out,
	}, func(string) string { return "" }, &stdout, &stderr)
	return stdout.String() + stderr.String(), err
}

// supervise starts bin with args and starts it again each time it exits,
// writing the running process's pid to pidFile, until the returned
// function is called.
func supervise(t *testing.T, bin string, args []string, pidFile string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	started := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		first := true
		for ctx.Err() == nil {
			cmd := exec.CommandContext(ctx, bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Start()
			if err == nil {
				err = os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
			}
			if first {
				started <- err
				first = false
			}
			if err != nil {
				return
			}
			_ = cmd.Wait()
			if ctx.Err() == nil && stderr.Len() > 0 {
				t.Logf("reference exited: %s", strings.TrimSpace(stderr.String()))
			}
		}
	}()
	require.NoError(t, <-started)
	return func() { cancel(); wg.Wait() }
}

// buildReference builds cmd/reference once per test binary.
func buildReference(t *testing.T) string {
	t.Helper()
	referenceOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chaos-reference-")
		if err != nil {
			referenceErr = err
			return
		}
		referenceBin = filepath.Join(dir, "reference")
		goBin, err := exec.LookPath("go")
		if err != nil {
			referenceErr = fmt.Errorf("the chaos test builds cmd/reference and needs go on PATH: %w", err)
			return
		}
		cmd := exec.CommandContext(context.Background(), goBin, "build", "-o", referenceBin, "github.com/partnercommerce/conformance/cmd/reference")
		if out, err := cmd.CombinedOutput(); err != nil {
			referenceErr = fmt.Errorf("go build cmd/reference: %w\n%s", err, out)
		}
	})
	require.NoError(t, referenceErr)
	return referenceBin
}

var (
	referenceOnce sync.Once
	referenceBin  string
	referenceErr  error
)

// requireStateFlag fails at once, with the reason, when the reference has
// lost its --state flag (rather than failing on its usage later).
func requireStateFlag(t *testing.T, bin string) {
	t.Helper()
	out, _ := exec.CommandContext(t.Context(), bin, "--help").CombinedOutput()
	require.Contains(t, string(out), "-state", "the reference has no --state flag")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := net.Dialer{Timeout: time.Second}
		c, err := d.DialContext(t.Context(), "tcp", addr)
		if err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference does not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leadingLines are the headlines of the findings a failed report leads
// with ("  1. ...").
func leadingLines(report string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(report))
	lead := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Load test "):
			lead = true
		case lead && len(l) > 4 && strings.HasPrefix(l, "  ") && l[2] >= '1' && l[2] <= '9' && strings.Contains(l[:6], ". "):
			lines = append(lines, l)
		case lead && (strings.HasPrefix(l, "     ") || strings.HasPrefix(l, "FAIL")):
		case lead:
			return lines
		}
	}
	return lines
}

func head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// TestChaosPageInABrowser: the page of a run whose in-memory reference was
// killed twice shows, in headless Chromium, the faults shaded on every
// chart and listed in their table, leads with the lost writes, and folds
// the ids of each class. Its screenshot is the README's (refreshed with
// $CONFORMANCE_SCREENSHOTS).
func TestChaosPageInABrowser(t *testing.T) {
	browsertest.Need(t) // before the chaos run
	t.Parallel()
	bin := buildReference(t)
	out := t.TempDir()
	load := chaosLoad{rate: 100, duration: 5 * time.Second, nemesis: "every 2s from 1500ms shell name kill-9: kill -KILL $(cat %s)"}
	summary, err := chaosRun(t, bin, false, load, out)
	require.ErrorIs(t, err, errFailed, summary)

	bp := browsertest.Open(t, filepath.Join(out, report.FileHTML))
	assert.Empty(t, bp.Errors(), "console errors")
	faults := browsertest.Eval[int](t, bp, `document.querySelectorAll("#fault-table tr").length - 1`)
	assert.Equal(t, 2, faults, "two kills")
	for _, id := range []string{"chart-rate", "chart-latency", "chart-status"} {
		assert.Equal(t, faults, browsertest.Eval[int](t, bp, `document.querySelectorAll("#`+id+` g.fault").length`), "%s shades each fault", id)
	}
	assert.Contains(t, browsertest.Eval[string](t, bp, `document.querySelector("#findings li.finding p").innerText`), "created payments were lost: acknowledged as created, then payment status did not find them")
	assert.Positive(t, browsertest.Eval[int](t, bp, `document.querySelectorAll("details.id-class").length`))
	assert.Zero(t, browsertest.Eval[int](t, bp, `document.querySelectorAll("details.id-class[open]").length`), "the ids are folded")

	png := browsertest.Screenshot(t, bp, "load-chaos.png", true)
	browsertest.SaveForDocs(t, filepath.Join("..", "..", "docs", "load-chaos.png"), png)
}
