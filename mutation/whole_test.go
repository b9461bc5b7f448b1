package mutation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wholeConfig is fixtureConfig on a copy of the fixture module, which the
// test may change, with the ledger in the work directory.
func wholeConfig(t *testing.T) Config {
	t.Helper()
	cfg := fixtureConfig(t, "check")
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(cfg.Root)))
	cfg.Root = root
	cfg.Ledger = filepath.Join(cfg.Work, "mutation-ledger.jsonl")
	return cfg
}

// partsOf maps each mutant of the ledger (original → mutated) to the part
// that judged it.
func partsOf(t *testing.T, path string) map[string]int {
	t.Helper()
	led, err := ReadLedger(path)
	require.NoError(t, err)
	out := map[string]int{}
	for _, e := range led.Entries {
		out[e.Original+" → "+e.Mutated] = e.Part
	}
	return out
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// cancelOnVerdict cancels a run once it has printed its first verdict
// (the line after the verdict is appended to the ledger).
type cancelOnVerdict struct {
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (c *cancelOnVerdict) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.HasPrefix(p, []byte("[")) {
		c.cancel()
	}
	return len(p), nil
}

// TestAWholeRunResumesWhereItStopped: a run of --limit 2 judges two
// mutants; an interrupted run keeps the verdict it finished, and a kill
// in the middle of a line loses only that line; the next run judges only
// the mutants left, and one after it judges none, without even building
// the reference.
func TestAWholeRunResumesWhereItStopped(t *testing.T) {
	t.Parallel()
	cfg := wholeConfig(t)

	cfg.Limit = 2
	led, _, err := RunAll(t.Context(), cfg)
	require.NoError(t, err)
	assert.Len(t, led.Entries, 2)
	require.Len(t, led.Parts, 1)
	assert.Equal(t, endedLimit, led.Parts[0].Ended)

	cfg.Limit = 0
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	interrupted := cfg
	interrupted.Progress = &cancelOnVerdict{cancel: cancel}
	led, _, err = RunAll(ctx, interrupted)
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, led.Entries, 3, "the verdict finished before the interruption is kept")
	require.Len(t, led.Parts, 2)
	assert.Equal(t, endedInterrupted, led.Parts[1].Ended)
	appendFile(t, cfg.Ledger, `{"mutant": {"file": "reference/answer.go", "func": "Ans`)

	before := partsOf(t, cfg.Ledger)
	require.Len(t, before, 3)
	var out strings.Builder
	cfg.Progress = &out
	led, src, err := RunAll(t.Context(), cfg)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "3 to try (3 never tried, 0 again")
	after := partsOf(t, cfg.Ledger)
	assert.Len(t, after, 6)
	for change, part := range after {
		if p, ok := before[change]; ok {
			assert.Equal(t, p, part, "%s: judged again", change)
		} else {
			assert.Equal(t, 3, part, change)
		}
	}
	current, stale, untried := led.Verdicts(src)
	assert.Len(t, current, 6)
	assert.Empty(t, stale)
	assert.Empty(t, untried)
	assert.Equal(t, endedDone, led.Parts[len(led.Parts)-1].Ended)

	out.Reset()
	_, _, err = RunAll(t.Context(), cfg)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "0 to try")
	assert.NotContains(t, out.String(), "building the reference")
	assert.Equal(t, after, partsOf(t, cfg.Ledger))
}

// TestAChangedFileOrKillerIsJudgedAgain: a change of one mutated file
// judges again only that file's mutants; a change of the killer's code
// (here the server's main package, which the killer's hash covers) judges
// every mutant again.
func TestAChangedFileOrKillerIsJudgedAgain(t *testing.T) {
	t.Parallel()
	cfg := wholeConfig(t)
	_, _, err := RunAll(t.Context(), cfg)
	require.NoError(t, err)
	first := partsOf(t, cfg.Ledger)
	require.Len(t, first, 6)
	for change, part := range first {
		assert.Equal(t, 1, part, change)
	}

	appendFile(t, filepath.Join(cfg.Root, "reference", "httpapi", "status.go"), "\n// A comment changes the file's hash.\n")
	_, _, err = RunAll(t.Context(), cfg)
	require.NoError(t, err)
	for change, part := range partsOf(t, cfg.Ledger) {
		if change == "Slow = 0 → Slow = 1" {
			assert.Equal(t, 2, part, "the changed file's mutant is judged again")
		} else {
			assert.Equal(t, 1, part, "%s: its file did not change", change)
		}
	}

	appendFile(t, filepath.Join(cfg.Root, "cmd", "reference", "main.go"), "\n// A comment changes the killer's hash.\n")
	led, _, err := RunAll(t.Context(), cfg)
	require.NoError(t, err)
	for change, part := range partsOf(t, cfg.Ledger) {
		assert.Equal(t, 3, part, "%s: the killer changed", change)
	}
	require.Len(t, led.Parts, 1, "parts no verdict names any more are dropped")
	assert.Equal(t, 3, led.Parts[0].ID)
}

// TestKillerHash: the hash changes with the killer's command and the code
// it judges with, and not with a mutated file, which has its own hash.
func TestKillerHash(t *testing.T) {
	t.Parallel()
	cfg := wholeConfig(t)
	files, err := Sources(cfg.Root)
	require.NoError(t, err)
	hash := func(c Config) string {
		h, _, err := KillerHash(t.Context(), c, files)
		require.NoError(t, err)
		return h
	}
	base := hash(cfg)
	assert.Equal(t, base, hash(cfg), "the same source, the same hash")

	fileHashes, err := FileHashes(cfg.Root, files)
	require.NoError(t, err)
	appendFile(t, filepath.Join(cfg.Root, "reference", "answer.go"), "\n// changed\n")
	assert.Equal(t, base, hash(cfg), "a mutated file is not the killer's")
	changed, err := FileHashes(cfg.Root, files)
	require.NoError(t, err)
	assert.NotEqual(t, fileHashes["reference/answer.go"], changed["reference/answer.go"])
	assert.Equal(t, fileHashes["reference/httpapi/status.go"], changed["reference/httpapi/status.go"])

	other := cfg
	other.ServerArgs = []string{"--seed", "2"}
	assert.NotEqual(t, base, hash(other), "the servers' flags")

	profile := filepath.Join(cfg.Root, "profile.yaml")
	require.NoError(t, os.WriteFile(profile, []byte("a: 1\n"), 0o600))
	k, err := ParseKiller("fake=" + os.Args[0] + " fake-killer check {target} {reports} --profile=profile.yaml")
	require.NoError(t, err)
	other.ServerArgs, other.Killers = nil, []Killer{k}
	named := hash(other)
	assert.NotEqual(t, base, named, "the killer's command")
	require.NoError(t, os.WriteFile(profile, []byte("a: 2\n"), 0o600))
	assert.NotEqual(t, named, hash(other), "a file the killer's command names")

	_, read, err := KillerHash(t.Context(), other, files)
	require.NoError(t, err)
	assert.Contains(t, read, "profile.yaml")
	assert.Contains(t, read, "cmd/reference/main.go")
	assert.Contains(t, read, "go.mod")
	assert.NotContains(t, read, "reference/answer.go")
}

// TestCommitSaysWhetherItsPathsChanged: a part's commit is marked
// "+changes" when a file its hashes cover differs from the commit, and
// not for another file.
func TestCommitSaysWhetherItsPathsChanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git := func(args ...string) {
		out, err := exec.CommandContext(t.Context(), "git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("init", "-q")
	for _, f := range []string{"judged.go", "other.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte("one\n"), 0o600))
	}
	git("add", ".")
	git("commit", "-q", "-m", "one")
	clean := commit(root, "judged.go")
	assert.Regexp(t, `^[0-9a-f]{12}$`, clean)
	appendFile(t, filepath.Join(root, "other.md"), "two\n")
	assert.Equal(t, clean, commit(root, "judged.go"), "a file the hashes do not cover")
	appendFile(t, filepath.Join(root, "judged.go"), "two\n")
	assert.Equal(t, clean+"+changes", commit(root, "judged.go"))
}

// TestOneRunAtATime: a run while another holds the ledger stops before
// anything, naming why.
func TestOneRunAtATime(t *testing.T) {
	t.Parallel()
	cfg := wholeConfig(t)
	unlock, err := lockLedger(cfg.Ledger)
	require.NoError(t, err)
	_, _, err = RunAll(t.Context(), cfg)
	require.ErrorContains(t, err, "another run holds the ledger's folder")
	assert.NoFileExists(t, cfg.Ledger)
	unlock()
	again, err := lockLedger(cfg.Ledger)
	require.NoError(t, err, "the lock is let go")
	again()
}

// TestReadLedger: a later line of a mutant replaces an earlier one; a last
// line cut short is left out, a bad line anywhere else is an error.
func TestReadLedger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	led, err := ReadLedger(path)
	require.NoError(t, err, "a missing ledger is an empty one")
	assert.Empty(t, led.Entries)

	a := result("reference/a.go", "a < b", "a <= b", Survived)
	b := result("reference/a.go", "c < d", "c <= d", Killed)
	gone := result("reference/gone.go", "e < f", "e <= f", Killed)
	led = &Ledger{Parts: []Part{{ID: 1}, {ID: 2}, {ID: 3}}, Entries: []Entry{
		{Result: b, Part: 1}, {Result: a, Part: 1}, {Result: gone, Part: 3},
	}}
	require.NoError(t, led.Write(path))
	appendFile(t, path, `{"mutant": {"file": "reference/a.go", "func": "f", "original": "a < b", "mutated": "a <= b", "status": "killed", "part": 2}}`+"\n"+`{"mutant": {"fi`)

	led, err = ReadLedger(path)
	require.NoError(t, err)
	require.Len(t, led.Entries, 4)
	led.compact([]Mutant{a.Mutant, b.Mutant})
	require.Len(t, led.Entries, 2, "one verdict a mutant, and none of a mutant gone")
	byKey := led.index()
	assert.Equal(t, Killed, byKey[a.Key].Status)
	assert.Equal(t, 2, byKey[a.Key].Part, "the later line wins")
	assert.Equal(t, 1, byKey[b.Key].Part)
	assert.Equal(t, []int{1, 2}, []int{led.Parts[0].ID, led.Parts[1].ID}, "part 3 judged only a mutant gone")

	require.NoError(t, os.WriteFile(path, []byte("{\"part\": {\"id\": 1}}\nnot json\n{}\n"), 0o600))
	_, err = ReadLedger(path)
	require.ErrorContains(t, err, "ledger.jsonl:2")
}
