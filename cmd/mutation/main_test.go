package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/mutation"
)

// writeResults writes a results file of one killed and one surviving
// mutant, and returns its path and the survivor's key.
func writeResults(t *testing.T, dir string) (string, mutation.Key) {
	t.Helper()
	killed := mutation.Mutant{Key: mutation.Key{File: "reference/a.go", Func: "f", Original: "a < b", Mutated: "a <= b"}, Operator: mutation.ConditionalsBoundary}
	lived := mutation.Mutant{Key: mutation.Key{File: "reference/a.go", Func: "f", Original: "c < d", Mutated: "c <= d"}, Operator: mutation.ConditionalsBoundary}
	lines := []any{
		map[string]any{"header": mutation.Header{Seed: 1, Size: 2, Files: []string{"reference/a.go"}}},
		map[string]any{"result": mutation.Result{Mutant: killed, ID: killed.ID(), Status: mutation.Killed, KilledBy: "conformance"}},
		map[string]any{"result": mutation.Result{Mutant: lived, ID: lived.ID(), Status: mutation.Survived}},
		map[string]any{"footer": mutation.Footer{Seconds: 10, Viable: 2, Tried: 2}},
	}
	var buf bytes.Buffer
	for _, l := range lines {
		require.NoError(t, json.NewEncoder(&buf).Encode(l))
	}
	path := filepath.Join(dir, "results.jsonl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path, lived.Key
}

// TestReportSaysWhetherTheGoalIsMet: a survivor not classified fails the
// report (exit 1) and is printed; once classified equivalent, the one
// judged mutant is killed and the report passes (exit 0), writing the doc.
func TestReportSaysWhetherTheGoalIsMet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	results, lived := writeResults(t, dir)
	classes := filepath.Join(dir, "survivors.yaml")
	doc := filepath.Join(dir, "mutation.md")
	args := []string{"report", "--results", results, "--classes", classes, "--doc", doc}

	var out, errOut bytes.Buffer
	assert.Equal(t, exitBelowGoal, run(t.Context(), args, &out, &errOut))
	assert.Contains(t, out.String(), "survived, not classified: "+lived.ID())
	assert.Contains(t, errOut.String(), "the goal is not met")

	entry := "- id: " + lived.ID() + "\n  file: reference/a.go\n  func: f\n  original: c < d\n  mutated: c <= d\n  class: equivalent\n  why: c and d are never equal.\n"
	require.NoError(t, os.WriteFile(classes, []byte(entry), 0o600))
	out.Reset()
	errOut.Reset()
	assert.Equal(t, exitOK, run(t.Context(), args, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "score 100.0 % of 1 judged")
	written, err := os.ReadFile(doc)
	require.NoError(t, err)
	assert.Contains(t, string(written), "c and d are never equal.")
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"unknown command":                          {"frobnicate"},
		"bad flag":                                 {"run", "--sizes", "3"},
		"killer without target":                    {"run", "--killer", "x=bin/conformance"},
		"show without an id":                       {"show"},
		"show of an unknown id":                    {"show", "00000000"},
		"report without results":                   {"report", "--results", filepath.Join(t.TempDir(), "none.jsonl")},
		"a sample's size in the whole enumeration": {"run", "--all", "--size", "3"},
		"--limit (so --all) with --only":           {"run", "--limit", "3", "--only", "00000000"},
		"a negative limit":                         {"run", "--all", "--limit", "-1"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			assert.Equal(t, exitUsage, run(t.Context(), args, &out, &errOut))
			assert.NotEmpty(t, errOut.String())
		})
	}
}
