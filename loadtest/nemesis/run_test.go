//go:build unix

package nemesis

import (
	"bytes"
	"context"
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
	var log bytes.Buffer
	began := time.Now()
	r := Start(context.Background(), s, began, 2*time.Second, &log)
	time.Sleep(time.Second) // every firing is due by 250 ms; the rest is slack for a busy machine
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
// at its timeout, one that fails is recorded with its status, and neither
// stops the rest of the schedule.
func TestRunBoundsHangingAndFailingCommands(t *testing.T) {
	t.Parallel()
	s := Schedule{
		{Name: "hang", Timeout: 200 * time.Millisecond, Shell: true, Run: Command{"sleep 30 & sleep 30"}},
		{Name: "fail", Run: Command{"false"}},
		{Name: "fine", Run: Command{"true"}},
	}
	var log bytes.Buffer
	start := time.Now()
	r := Start(context.Background(), s, start, time.Second, &log)
	time.Sleep(300 * time.Millisecond) // all three are due at once; slack for a busy machine
	faults := r.Stop()
	assert.Less(t, time.Since(start), 5*time.Second, "the hanging command (and its child) was killed at its timeout")
	got := map[string]string{}
	for _, f := range faults {
		got[f.Name] = f.Error
	}
	assert.Contains(t, got["hang"], "timed out after 200ms (killed)")
	assert.Contains(t, got["fail"], "exit status 1")
	assert.Empty(t, got["fine"])
	assert.Len(t, got, 3)
}

// TestStopRecoversAFaultUnderWay: when the attack ends during a fault, its
// recover command runs at once, so the target is never left paused.
func TestStopRecoversAFaultUnderWay(t *testing.T) {
	t.Parallel()
	s := Schedule{{At: 0, For: time.Hour, Run: Command{"true"}, Recover: Command{"echo", "resumed"}}}
	var log bytes.Buffer
	r := Start(context.Background(), s, time.Now(), time.Second, &log)
	time.Sleep(100 * time.Millisecond)
	faults := r.Stop()
	require.Len(t, faults, 1)
	assert.Contains(t, log.String(), "resumed")
}

func lookPath(string) (string, error) { return "", nil }
