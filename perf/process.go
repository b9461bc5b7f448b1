package perf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Launcher starts one server process for a measurement.
type Launcher struct {
	Name string
	Argv []string // the command and its arguments; the server must print "listening on http://ADDR"
}

// Process is a running server.
type Process struct {
	Name    string
	URL     string
	Metrics string // its Prometheus metrics, when it printed "metrics on URL" before its address
	cmd     *exec.Cmd
	out     *tail
	done    chan error
}

// startTimeout bounds how long a server may take to print its address.
const startTimeout = 15 * time.Second

// Start runs the server and waits until it prints its address.
func (l Launcher) Start(ctx context.Context) (*Process, error) {
	if len(l.Argv) == 0 {
		return nil, fmt.Errorf("%s: no command", l.Name)
	}
	cmd := exec.CommandContext(ctx, l.Argv[0], l.Argv[1:]...) //nolint:gosec // the commands of the perf run itself
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errs := &tail{max: 4096}
	cmd.Stderr = errs
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	p := &Process{Name: l.Name, cmd: cmd, out: errs, done: make(chan error, 1)}
	type urls struct{ api, metrics string }
	addr := make(chan urls, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		var metrics string
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "metrics on "); ok && metrics == "" {
				metrics = u
			}
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				select {
				case addr <- urls{u, metrics}:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { p.done <- cmd.Wait() }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case u := <-addr:
		p.URL, p.Metrics = u.api, u.metrics
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("%s exited before listening (%w): %s", l.Name, err, errs)
	case <-timer.C:
		_ = p.Stop()
		return nil, fmt.Errorf("%s printed no address within %s: %s", l.Name, startTimeout, errs)
	case <-ctx.Done():
		_ = p.Stop()
		return nil, ctx.Err()
	}
}

// Stop ends the server: SIGTERM, then SIGKILL after ten seconds.
func (p *Process) Stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		var exit *exec.ExitError
		if errors.As(err, &exit) && !exit.Exited() { // ended by the signal
			return nil
		}
		return err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("%s did not stop within 10s of SIGTERM; killed", p.Name)
	}
}

// RSS is the process's resident memory in bytes (Linux /proc).
func (p *Process) RSS() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, err
	}
	return parseRSS(b)
}

func parseRSS(status []byte) (int64, error) { return parseStatusKB(status, "VmRSS:") }

// parseHWM reads the peak resident memory (VmHWM) from /proc/PID/status.
func parseHWM(status []byte) (int64, error) { return parseStatusKB(status, "VmHWM:") }

// parseStatusKB reads one "Name:   N kB" line of /proc/PID/status, in bytes.
func parseStatusKB(status []byte, name string) (int64, error) {
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte(name)); ok {
			f := strings.Fields(string(v))
			if len(f) != 2 || f[1] != "kB" {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				break
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no %s line in /proc status", strings.TrimSuffix(name, ":"))
}

// tail keeps the last max bytes written to it, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
