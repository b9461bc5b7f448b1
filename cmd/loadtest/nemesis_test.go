package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNemesisBadInput: a bad schedule, or a command that does not exist,
// stops the run before anything is started, sent or written.
func TestNemesisBadInput(t *testing.T) {
	t.Parallel()
	profile := filepath.Join(t.TempDir(), "load.yaml")
	require.NoError(t, os.WriteFile(profile, []byte("rate: 10\nduration: 2s\nnemesis:\n  - {at: 1s, run: kill -STOP 1, for: 1s}\n"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad schedule", []string{"--nemesis", "sometimes: true"}, `unknown word "sometimes"`},
		{"no such program", []string{"--nemesis", "at 1s: no-such-program-anywhere --now"}, "no-such-program-anywhere: no such program"},
		{"after the attack", []string{"--duration", "2s", "--nemesis", "at 5s: true"}, "at 5s is not within the attack's 2s"},
		{"profile's schedule is checked too", []string{"--load-profile", profile}, "needs a recover command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(tt.args, "--out", out, "--quiet"), func(string) string { return "" }, &stdout, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NoDirExists(t, out, "nothing is written")
			assert.NotContains(t, stderr.String(), "started the embedded reference")
		})
	}
}
