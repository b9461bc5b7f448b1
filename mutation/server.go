package mutation

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is a running reference binary, mutated or not, on a free port of
// the loopback.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *tail
	exited chan struct{}
}

// startServer starts bin on 127.0.0.1 with a port the kernel picks, and
// waits up to bound for it to say where it listens ("listening on URL", as
// cmd/reference prints). A server that exits first, or stays silent, is an
// error that carries the end of what it wrote.
func startServer(ctx context.Context, bin string, args []string, bound time.Duration) (*server, error) {
	args = append([]string{"--addr", "127.0.0.1:0", "--log-level", "error"}, args...)
	cmd := exec.Command(bin, args...) //nolint:gosec,noctx // our own build; stopped by stop, in its own process group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stderr: &tail{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				urls <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { _ = cmd.Wait(); close(s.exited) }()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case s.url = <-urls:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("the server exited before listening (%s): %s", cmd.ProcessState, s.stderr.last())
	case <-timer.C:
		s.stop()
		return nil, fmt.Errorf("the server did not listen within %s: %s", bound, s.stderr.last())
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// stop ends the server: SIGTERM to its process group, SIGKILL after 5 s.
func (s *server) stop() {
	pgid := -s.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-s.exited
	}
}

// tail keeps the last lines a process wrote.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

// lines is the last n non-empty lines written.
func (t *tail) lines(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for line := range strings.Lines(string(t.buf)) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out[max(len(out)-n, 0):]
}

// last is the last non-empty line written, or "no output".
func (t *tail) last() string {
	if l := t.lines(1); len(l) > 0 {
		return l[0]
	}
	return "no output"
}
