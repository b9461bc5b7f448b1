//go:build unix

package nemesis

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunRecordsFaults: every firing is a fault with its start and end, a
// fault with for lasts until its recover command, and the output of the
// commands goes to the log.
func TestRunRecordsFaults(t *testing.T) {
	t.Parallel()
	s := Schedule{
		{Name: "echo", Every: 100 * time.Millisecond, Until: 250 * time.Millisecond, Run: Command{"echo", "hello from the nemesis"}},
		{At: 50 * time.Millisecond, For: 200 * time.Millisecond, Run: Command{"true"}, Recover: Command{"echo", "recovered"}},
	}
	require.NoError(t, s.Validate(time.Second, lookPath))
	log := newWatchedLog()
	r := Start(context.Background(), s, time.Now(), 2*time.Second, log)
	log.waitFor(t, "step 1 run ended", 3) // the firings at 0, 100 and 200 ms
	log.waitFor(t, "step 2 recover ended", 1)
	faults := r.Stop()
	require.Len(t, faults, 4)
	var pause Fault
	for _, f := range faults {
		assert.Empty(t, f.Error)
		assert.False(t, f.End.Before(f.Start))
		if f.Step == 2 {
			pause = f
		}
	}
	assert.Equal(t, "echo", faults[0].Name)
	assert.GreaterOrEqual(t, pause.End.Sub(pause.Start), 200*time.Millisecond, "the fault lasts until its recover command")
	assert.Equal(t, "echo recovered", pause.Recover)
	assert.Contains(t, log.String(), "hello from the nemesis")
	assert.Contains(t, log.String(), "recovered")
}

// TestRunBoundsHangingAndFailingCommands: a command that hangs is killed
// at its timeout, its child too, one that fails is recorded with its
// status, and neither stops the rest of the schedule.
func TestRunBoundsHangingAndFailingCommands(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "child")
	s := Schedule{
		{Name: "hang", Timeout: time.Second, Shell: true, Run: Command{"sleep 300 & echo $! > " + pidFile + "; sleep 300"}},
		{Name: "fail", Run: Command{"false"}},
		{Name: "fine", Run: Command{"true"}},
	}
	log := newWatchedLog()
	r := Start(context.Background(), s, time.Now(), time.Second, log)
	for _, step := range []string{"step 1", "step 2", "step 3"} { // all three are due at once
		log.waitFor(t, step+" run ended", 1)
	}
	faults := r.Stop()
	got := map[string]string{}
	for _, f := range faults {
		got[f.Name] = f.Error
	}
	assert.Contains(t, got["hang"], "timed out after 1s (killed)")
	assert.Contains(t, got["fail"], "exit status 1")
	assert.Empty(t, got["fine"])
	assert.Len(t, got, 3)

	pid, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		// A machine so loaded that the shell did not get to its second
		// command within the second: no child of its to look for.
		t.Log("the hanging command was killed before it said its child's pid")
		return
	}
	require.NoError(t, err)
	waitGone(t, strings.TrimSpace(string(pid)))
}

// TestStopRecoversAFaultUnderWay: when the attack ends during a fault, its
// recover command runs at once, so the target is never left paused.
func TestStopRecoversAFaultUnderWay(t *testing.T) {
	t.Parallel()
	s := Schedule{{At: 0, For: time.Hour, Run: Command{"true"}, Recover: Command{"echo", "resumed"}}}
	log := newWatchedLog()
	r := Start(context.Background(), s, time.Now(), time.Second, log)
	log.waitFor(t, "step 1 run ended", 1) // the fault is under way, for an hour
	faults := r.Stop()
	require.Len(t, faults, 1)
	assert.Contains(t, log.String(), "resumed")
}

func lookPath(string) (string, error) { return "", nil }

// watchedLog is a nemesis log a test can wait on.
type watchedLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // a write since the last look
}

func newWatchedLog() *watchedLog { return &watchedLog{wrote: make(chan struct{}, 1)} }

func (l *watchedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return l.buf.Write(p)
}

func (l *watchedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor waits until the log holds text n times.
func (l *watchedLog) waitFor(t *testing.T, text string, n int) {
	t.Helper()
	for strings.Count(l.String(), text) < n {
		select {
		case <-l.wrote:
		case <-time.After(time.Minute):
			t.Fatalf("the log holds %q %d times after a minute, not %d:\n%s", text, strings.Count(l.String(), text), n, l.String())
		}
	}
}

// waitGone waits until the process pid has ended (gone, or a zombie not
// yet reaped by its new parent): a SIGKILLed process ends as soon as the
// kernel runs it.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			if _, serr := os.Stat("/proc/self"); serr != nil {
				t.Skip("no /proc to look the child up in")
			}
			return // gone
		}
		if _, rest, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(rest, "Z") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hanging command's child %s still runs a minute after its timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
