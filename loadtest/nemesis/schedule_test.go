package nemesis

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestParseStep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Step
	}{
		{"once", "at 3s: systemctl restart payments",
			Step{At: 3 * time.Second, Run: Command{"systemctl", "restart", "payments"}}},
		{"every with bounds", "every 4s from 2s until 20s: kubectl delete pod -l 'app=pay ments'",
			Step{At: 2 * time.Second, Every: 4 * time.Second, Until: 20 * time.Second,
				Run: Command{"kubectl", "delete", "pod", "-l", "app=pay ments"}}},
		{"pause and resume", "at 5s for 2s name pause: kill -STOP 4242 ;; kill -CONT 4242",
			Step{Name: "pause", At: 5 * time.Second, For: 2 * time.Second,
				Run: Command{"kill", "-STOP", "4242"}, Recover: Command{"kill", "-CONT", "4242"}}},
		{"shell keeps the line whole", "every 3s shell timeout 5s: kill -KILL $(cat server.pid)",
			Step{Every: 3 * time.Second, Shell: true, Timeout: 5 * time.Second, Run: Command{"kill -KILL $(cat server.pid)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseStep(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseStepRefusesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"no colon", "at 3s kill -9 1", "want WHEN: COMMAND"},
		{"no time", "kill: -9 1", "unknown word \"kill\""},
		{"no when", "shell: kill -9 1", "say when"},
		{"bad duration", "at soon: kill -9 1", "at: time: invalid duration"},
		{"missing duration", "every: kill", "every needs a duration"},
		{"no command", "at 1s:  ", "no command after the colon"},
		{"unclosed quote", "at 1s: echo 'oops", "unclosed quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseStep(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestStepFromYAML(t *testing.T) {
	t.Parallel()
	var s Schedule
	require.NoError(t, yaml.Unmarshal([]byte(`
- name: restart
  every: 5s
  at: 2s
  run: [systemctl, restart, payments]
- at: 3s
  for: 1s
  run: kill -STOP 42
  recover: "kill -CONT 42"
`), &s))
	require.Len(t, s, 2)
	assert.Equal(t, Command{"systemctl", "restart", "payments"}, s[0].Run)
	assert.Equal(t, Command{"kill", "-CONT", "42"}, s[1].Recover)
	assert.Equal(t, "restart", s.Label(0))
	assert.Equal(t, "kill -STOP 42", s.Label(1))
	assert.Equal(t, []time.Duration{2 * time.Second, 7 * time.Second}, s[0].times(10*time.Second))
}

func TestValidateRefusesBadSchedules(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/bin/x", nil }
	tests := []struct {
		name string
		step Step
		look func(string) (string, error)
		want string
	}{
		{"after the attack", Step{At: 10 * time.Second, Run: Command{"true"}}, found, "not within the attack's 10s"},
		{"until before at", Step{At: 5 * time.Second, Every: time.Second, Until: time.Second, Run: Command{"true"}}, found, "until 1s is before at 5s"},
		{"for without recover", Step{At: time.Second, For: time.Second, Run: Command{"true"}}, found, "needs a recover command"},
		{"recover without for", Step{At: time.Second, Run: Command{"true"}, Recover: Command{"true"}}, found, "needs for"},
		{"tiny interval", Step{Every: time.Millisecond, Run: Command{"true"}}, found, "below 10ms"},
		{"no such program", Step{At: time.Second, Run: Command{"no-such-program-anywhere"}}, exec.LookPath, "no-such-program-anywhere: no such program"},
		{"no such recover program", Step{At: time.Second, For: time.Second, Run: Command{"true"}, Recover: Command{"/nope/cont"}}, exec.LookPath, "/nope/cont: no such program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Schedule{tt.step}.Validate(10*time.Second, tt.look)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.NoError(t, Schedule{{Every: time.Second, Shell: true, Run: Command{"kill -9 $(cat pid)"}}}.Validate(10*time.Second, exec.LookPath))
}

// FuzzParseStep: any flag value is a step or an error, never a panic; a
// step always has a command, and a recover command only after " ;; ".
func FuzzParseStep(f *testing.F) {
	for _, s := range []string{
		"at 3s: systemctl restart payments",
		"every 4s from 2s until 20s: kubectl delete pod -l 'app=pay ments'",
		"at 5s for 2s name pause: kill -STOP 4242 ;; kill -CONT 4242",
		"every 3s shell timeout 5s: kill -KILL $(cat server.pid)",
		"at: ", "every -1s: x", "at 1s: \"unclosed", "name: x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStep(s)
		if err != nil {
			return
		}
		if len(st.Run) == 0 {
			t.Fatalf("%q: a step without a command", s)
		}
		if len(st.Recover) > 0 && !strings.Contains(s, " ;; ") {
			t.Fatalf("%q: a recover command without ;;", s)
		}
		_ = Schedule{st}.Validate(time.Minute, func(string) (string, error) { return "", nil })
	})
}
