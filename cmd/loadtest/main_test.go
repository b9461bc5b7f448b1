package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func noEnv(string) string { return "" }

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	err := run(ctx, args, noEnv, &out, &errb)
	return out.String(), errb.String(), err
}

func TestRunAgainstEmbeddedReferencePasses(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{"create", "idempotency", "mixed"} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			rate := "60"
			if sc == "idempotency" {
				rate = "40/1s" // requests per second: 5 waves of 8
			}
			out, stderr, runErr := runCLI(t, "--scenario", sc, "--rate", rate, "--duration", "1s", "--wave-size", "8",
				"--out", dir, "--max-duplicate-debits", "0", "--min-success", "99", "--max-p99", "2s")
			requireNoFailure(t, out, stderr, runErr)
			assert.Contains(t, stderr, "started the embedded reference")
			assert.Contains(t, stderr, "sent ") // the progress line
			for _, f := range []string{"results.bin", "report.json", "report.txt", "plot.html", "ledger.jsonl", "shard.json"} {
				st, err := os.Stat(filepath.Join(dir, f))
				require.NoError(t, err, f)
				assert.Greater(t, st.Size(), int64(0), f)
			}
			var rep map[string]any
			b, err := os.ReadFile(filepath.Join(dir, "report.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rep))
			for _, k := range []string{"latency_corrected", "latency_raw", "status_codes", "reconciliation", "generator", "thresholds"} {
				assert.Contains(t, rep, k)
			}
			assert.Equal(t, runErr == nil, rep["passed"])
		})
	}
}

func TestThresholdFailureExitsWithFailure(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "--scenario", "create", "--rate", "30", "--duration", "500ms", "--quiet",
		"--out", t.TempDir(), "--max-p50", "1ns")
	require.ErrorIs(t, err, errFailed)
	assert.Contains(t, out, "FAIL")
	assert.Contains(t, out, "threshold")
}

// TestUnmeasuredThresholdFails: without reconciliation duplicate debits are
// not measured, so a threshold on them cannot pass.
func TestUnmeasuredThresholdFails(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, "--scenario", "create", "--rate", "30", "--duration", "300ms", "--quiet",
		"--out", t.TempDir(), "--no-reconcile", "--max-duplicate-debits", "0")
	require.ErrorIs(t, err, errFailed)
	assert.Contains(t, out, "duplicate_debits<=0 (not measured)")
	assert.Contains(t, out, "FAIL")
}

func TestLoadProfileFileAndFlagOverride(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lp := filepath.Join(dir, "load.yaml")
	require.NoError(t, os.WriteFile(lp, []byte("pacing: linear\nrate: 10\nend_rate: 60\nduration: 5s\n"), 0o644))
	out, stderr, err := runCLI(t, "--scenario", "create", "--load-profile", lp, "--duration", "800ms", "--quiet", "--out", filepath.Join(dir, "out"))
	requireNoFailure(t, out, stderr, err)
	assert.Contains(t, out, "linear 10→60/s for 800ms")
}

func TestShardsThenMerge(t *testing.T) {
	t.Parallel()
	// Both shards need the same server: start one through the first run's
	// embedded reference is not possible, so use a shared profile target.
	srvURL := startTestReference(t)
	root := t.TempDir()
	var dirs []string
	for i := range 2 {
		d := filepath.Join(root, "s"+string(rune('0'+i)))
		dirs = append(dirs, d)
		out, stderr, err := runCLI(t, "--target", srvURL, "--scenario", "create", "--rate", "40", "--duration", "500ms",
			"--shard", []string{"0/2", "1/2"}[i], "--run-id", "mergetest1", "--quiet", "--out", d)
		requireNoFailure(t, out, stderr, err)
	}
	merged := filepath.Join(root, "merged")
	out, stderr, err := runCLI(t, append([]string{"merge", "--out", merged, "--max-duplicate-debits", "0"}, dirs...)...)
	requireNoFailure(t, out, stderr, err)
	assert.Contains(t, out, "shards 0/2 1/2")
	_, err = os.Stat(filepath.Join(merged, "results.bin"))
	require.NoError(t, err)

	_, _, err = runCLI(t, "merge", dirs[0])
	assert.ErrorContains(t, err, "missing")
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"scenario":          {"--scenario", "nope", "--duration", "100ms"},
		"shard without id":  {"--shard", "0/2"},
		"shard":             {"--shard", "2/2", "--run-id", "x"},
		"mix":               {"--mix", "cash=1"},
		"threshold":         {"--max-p99", "fast"},
		"pacing":            {"--pacing", "square"},
		"argument":          {"extra"},
		"merge nothing":     {"merge"},
		"reconcile timeout": {"--reconcile-timeout", "0", "--duration", "100ms"},
		"history timeout":   {"--check", "history", "--history-timeout", "0", "--duration", "100ms"},
		"check":             {"--check", "nope", "--duration", "100ms"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := runCLI(t, args...)
			require.Error(t, err)
			assert.NotErrorIs(t, err, errFailed)
		})
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	progressPrinter(&b)(progressSample())
	assert.True(t, strings.HasPrefix(b.String(), "[  2.0s] sent 10"), b.String())
	assert.NotContains(t, b.String(), "BEHIND")

	b.Reset()
	behind := progressSample()
	behind.BehindFrom = 1500 * time.Millisecond
	progressPrinter(&b)(behind)
	assert.True(t, strings.HasSuffix(b.String(), "  BEHIND its schedule since 1.5s\n"), b.String())

	b.Reset()
	done := progressSample()
	done.Final, done.Unexpected, done.Throttled = true, 2, 7
	progressPrinter(&b)(done)
	assert.True(t, strings.HasSuffix(b.String(), "  unexpected 2  contract violations 0  throttled 7\n"), b.String())

	b.Reset()
	done.FindsCreatedAgain, done.CreatedAgain, done.Reconciles = true, 3, true
	progressPrinter(&b)(done)
	assert.True(t, strings.HasSuffix(b.String(), "  unexpected 2  contract violations 0  created again 3  throttled 7; judged after the attack: lost and resurrected payments, wallets\n"), b.String())

	b.Reset()
	done.Gateway, done.GatewayStopped = 40, true
	progressPrinter(&b)(done)
	assert.True(t, strings.HasSuffix(b.String(), "  gateway 40  throttled 7; stopped: the answers are mostly a gateway's, not the API's\n"), b.String())

	b.Reset()
	progressPrinter(&b)(loadtest.Progress{Phase: loadtest.PhaseReconcile, Elapsed: 3 * time.Second, LookedUp: 1200, ToLookUp: 5000})
	assert.Equal(t, "[  3.0s] reconciling: 1,200 of 5,000 ids looked up\n", b.String())
}

// TestInterruptedRunExitsInterrupted: a run stopped by a signal (its
// context cancelled) reconciles what it sent, says INTERRUPTED, and is not
// a pass.
func TestInterruptedRunExitsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errb := &cancelOn{text: "] sent ", cancel: cancel} // the first progress line: the attack runs
	err := run(ctx, []string{"--target", startTestReference(t), "--scenario", "create", "--rate", "30", "--duration", "1m",
		"--out", t.TempDir()}, noEnv, &out, errb)
	require.ErrorIs(t, err, errInterrupted)
	assert.Contains(t, out.String(), "\nINTERRUPTED\n")
	assert.Contains(t, out.String(), "Reconciliation: ")
	assert.NotContains(t, out.String(), "scheduled requests (")
}

// TestHelpTeaches: --help groups every flag under a heading, shows
// examples, the merge subcommand and the environment, and exits 0.
func TestHelpTeaches(t *testing.T) {
	t.Parallel()
	_, stderr, err := runCLI(t, "--help")
	require.ErrorIs(t, err, flag.ErrHelp)
	for _, want := range []string{"Target:", "Load shape", "Scenario:", "Thresholds", "Output:", "Examples:",
		"loadtest merge", "--rate 320/1s", "--load-profile profiles/load/stages.yaml", "LOADTEST_TARGET", "Exit status"} {
		assert.Contains(t, stderr, want)
	}
	assert.NotContains(t, stderr, "\nOther:", "every flag of a run belongs to a group")

	_, stderr, err = runCLI(t, "merge", "--help")
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr, "SHARD-DIR")
	assert.Contains(t, stderr, "Example:")
	assert.NotContains(t, stderr, "\nOther:")
}

// TestStagedLoadProfileExample: the commented example of a multi-stage
// load profile parses, and a staged file runs; flags that would reshape it
// are refused.
func TestStagedLoadProfileExample(t *testing.T) {
	t.Parallel()
	lp := readLoad(t, filepath.Join("..", "..", "profiles", "load", "stages.yaml"))
	assert.Len(t, lp.Stages, 5)
	assert.Equal(t, 5*time.Minute+30*time.Second, lp.Duration)

	file := filepath.Join(t.TempDir(), "stages.yaml")
	require.NoError(t, os.WriteFile(file, []byte("stages:\n  - {rate: 20, duration: 300ms}\n  - {rate: 60, duration: 300ms}\n"), 0o644))
	out, stderr, err := runCLI(t, "--load-profile", file, "--scenario", "create", "--quiet", "--out", t.TempDir())
	requireNoFailure(t, out, stderr, err)
	assert.Contains(t, out, "2 stages for 600ms")

	_, _, err = runCLI(t, "--load-profile", file, "--rate", "5", "--quiet", "--out", t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in stages")
}

// TestSoakLoadProfile: the soak profile is an hour, a ramp to 5,000/s and a
// hold at it.
func TestSoakLoadProfile(t *testing.T) {
	t.Parallel()
	lp := readLoad(t, filepath.Join("..", "..", "profiles", "load", "soak.yaml"))
	assert.Equal(t, time.Hour, lp.Duration)
	require.Len(t, lp.Stages, 2)
	assert.Equal(t, pacing.Linear, lp.Stages[0].Pacing)
	assert.InDelta(t, 5000, lp.Stages[0].EndRate, 0)
	assert.InDelta(t, 5000, lp.Stages[1].Rate, 0)
}

// readLoad is the load of the load profile file path.
func readLoad(t *testing.T, path string) pacing.LoadProfile {
	t.Helper()
	s := loadtest.DefaultSettings()
	require.NoError(t, loadtest.ReadProfile(path, &s))
	return s.Load
}

// TestLoadProfileLayersOntoSettings: a load profile file sets any setting
// by its key, over the defaults, and the flags given set theirs over the
// file's; the file's faults come before the flags'.
func TestLoadProfileLayersOntoSettings(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "load.yaml")
	require.NoError(t, os.WriteFile(file, []byte("scenario: create\ntimeout: 2s\nmax_workers: 7\nrate: 30\nduration: 1s\n"+
		"nemesis:\n  - {name: first, at: 100ms, run: [\"true\"]}\n"), 0o644))
	f, err := parseRunFlags([]string{"--load-profile", file, "--timeout", "3s", "--nemesis", "at 200ms name second: true"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	s := f.settings
	assert.Equal(t, loadtest.ScenarioCreate, s.Scenario, "the file's")
	assert.Equal(t, 7, s.MaxWorkers, "the file's")
	assert.Equal(t, 3*time.Second, s.Timeout, "the flag's, over the file's")
	assert.Equal(t, pacing.LoadProfile{Pacing: pacing.Constant, Rate: 30, Duration: time.Second}, s.Load, "the file's load, whole")
	assert.Equal(t, loadtest.DefaultSettings().Drain, s.Drain, "the default")
	require.Len(t, s.Nemesis, 2)
	assert.Equal(t, []string{"first", "second"}, []string{s.Nemesis[0].Name, s.Nemesis[1].Name})

	_, err = parseRunFlags([]string{"--load-profile", file, "--mix", "balance=0"}, func(string) string { return "" }, io.Discard)
	assert.ErrorContains(t, err, "payment mix", "the settings are checked before anything starts")
}

// cancelOn is a writer that cancels when text is written to it.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   string
	cancel func()
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.cancel()
	}
	return len(p), nil
}

// TestProductsAndWhenDryFlags: --products restricts the payments to the
// products named; --when-dry takes continue, gateway or stop only.
func TestProductsAndWhenDryFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, stderr, err := runCLI(t, "--scenario", "create", "--rate", "40", "--duration", "300ms", "--quiet", "--out", dir,
		"--products", "1001,1002", "--mix", "balance=1", "--when-dry", "gateway")
	requireNoFailure(t, out, stderr, err)
	run, err := record.ReadDir(dir)
	require.NoError(t, err)
	ledger := recordtest.Payments(t, run)
	require.NotEmpty(t, ledger)
	for _, p := range ledger {
		assert.Contains(t, []int64{1001, 1002}, p.ProductID)
	}
	_, _, err = runCLI(t, "--when-dry", "later", "--quiet", "--out", t.TempDir(), "--duration", "100ms")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "when dry")
}

// TestBadFlagIsShort: a bad flag is the error, the usage line and where the
// help is, not the whole help.
func TestBadFlagIsShort(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--rtae", "5"}, {"merge", "--outt", "x"}} {
		_, stderr, err := runCLI(t, args...)
		require.Error(t, err)
		msg := err.Error()
		assert.Contains(t, msg, "flag provided but not defined")
		assert.Contains(t, msg, "usage: loadtest")
		assert.Contains(t, msg, "see loadtest")
		assert.Less(t, strings.Count(msg+stderr, "\n"), 4, msg+stderr)
	}
}

// TestMergeChecksTheRecordedHistory: merging the directory of a run with
// the history check reads its history from history.jsonl and checks it
// again, writing it into the merged directory.
func TestMergeChecksTheRecordedHistory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	d := filepath.Join(root, "run")
	out, stderr, err := runCLI(t, "--scenario", "create", "--rate", "40", "--duration", "500ms", "--quiet", "--out", d, "--check", "history")
	requireNoFailure(t, out, stderr, err)
	require.Contains(t, out, "history: linearizable")
	merged := filepath.Join(root, "merged")
	out, stderr, err = runCLI(t, "merge", "--out", merged, d)
	requireNoFailure(t, out, stderr, err)
	assert.Contains(t, out, "history: linearizable")
	want, err := os.ReadFile(filepath.Join(d, "history.jsonl"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(merged, "history.jsonl"))
	require.NoError(t, err)
	assert.Positive(t, bytes.Count(want, []byte("\n")))
	assert.Equal(t, string(want), string(got))
}

// TestTheDefaultLoadFindsBothRaces: `make load` (the default run against the
// embedded reference) fails when the embedded reference loses concurrent
// debits (--reference-fault lost-update-debit) and when its duplicate
// check is racy (racy-duplicate-check): the default run's waves put a
// wallet's debits and one id's requests in flight together. Before, the
// embedded reference could take no fault, and the default run sent every
// id once (it passed racy-duplicate-check).
func TestTheDefaultLoadFindsBothRaces(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"lost-update-debit", "racy-duplicate-check"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			out, stderr, err := runCLI(t, "--reference-fault", fault, "--quiet", "--out", t.TempDir())
			require.ErrorIs(t, err, errFailed, out+stderr)
			assert.Contains(t, stderr, "the embedded reference runs with the faults "+fault, stderr)
			assert.Contains(t, out, "\nFAIL: ", out)
		})
	}
	_, _, err := runCLI(t, "--reference-fault", "lost-update-debit", "--target", "http://127.0.0.1:1")
	assert.ErrorContains(t, err, "--reference-fault is for the embedded reference")
	_, _, err = runCLI(t, "--reference-fault", "no-such-fault")
	assert.ErrorContains(t, err, "--reference-fault: ")
}
