package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain makes the test binary a killer when its first argument is
// "fake-killer", followed by a mode, the target and the reports directory:
// "check" asks the target for /answer and fails (exit 1, and a failed
// scenario in the reports' summary.json) unless it is 42; "fail" fails
// always.
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "fake-killer" {
		os.Exit(fakeKiller(os.Args[2], os.Args[3], os.Args[4]))
	}
	os.Exit(m.Run())
}

func fakeKiller(mode, target, reports string) int {
	answer := ""
	if mode == "check" {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, target+"/answer", nil)
		if err != nil {
			return 2
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println("the target does not answer:", err)
			return 2
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		answer = string(body)
	}
	if answer == "42" {
		return 0
	}
	summary := `{"scenarios": [{"name": "The answer is 42", "location": "answer.feature:3", "status": "failed"},
		{"name": "Another", "location": "answer.feature:9", "status": "passed"}]}`
	if err := os.WriteFile(filepath.Join(reports, "summary.json"), []byte(summary), 0o600); err != nil {
		return 2
	}
	fmt.Printf("RESULT: FAIL: the answer is %q\n", answer)
	return 1
}

// fixtureConfig runs the killer mode against the fixture module of
// testdata/module.
func fixtureConfig(t *testing.T, mode string) Config {
	root, err := filepath.Abs("testdata/module")
	require.NoError(t, err)
	k, err := ParseKiller("fake=" + os.Args[0] + " fake-killer " + mode + " {target} {reports}")
	require.NoError(t, err)
	work := t.TempDir()
	return Config{Root: root, Seed: 1, Size: 100, Killers: []Killer{k}, Bound: 3 * time.Second, Work: work,
		Results: filepath.Join(work, "results.jsonl"), Go: "go", Progress: io.Discard}
}

// TestRunJudgesEachMutantOfTheFixture: a mutant the killer fails is
// killed, with the failed scenario named; one whose server does not start
// is killed at the start; one that makes the killer wait past the bound is
// killed by the bound; one that does not compile is not viable; the rest
// survive. The results file holds the same record.
func TestRunJudgesEachMutantOfTheFixture(t *testing.T) {
	t.Parallel()
	cfg := fixtureConfig(t, "check")
	rec, err := Run(t.Context(), cfg)
	require.NoError(t, err)
	got := map[string]Result{}
	for _, r := range rec.Results {
		got[r.Original+" → "+r.Mutated] = r
	}
	want := map[string]struct {
		status      Status
		by, because string
	}{
		"return 42 → return 43":              {Killed, "fake", "answer.feature:3 The answer is 42"},
		"return 42 → return 41":              {Killed, "fake", "answer.feature:3 The answer is 42"},
		"return true → return false":         {Killed, "start", "the server exited before listening"},
		"Slow = 0 → Slow = 1":                {Killed, "fake", "ran past the bound of 3s"},
		`Noted = "unread" → Noted = "unrea"`: {Survived, "", ""},
		"a + b → a - b":                      {NotViable, "", ""},
	}
	require.Len(t, got, len(want), "%v", rec.Results)
	for change, w := range want {
		r, ok := got[change]
		require.True(t, ok, change)
		assert.Equal(t, w.status, r.Status, change)
		assert.Equal(t, w.by, r.KilledBy, change)
		assert.True(t, strings.HasPrefix(r.Because, w.because), "%s: %s", change, r.Because)
	}
	assert.Contains(t, got["a + b → a - b"].BuildError, "operator - not defined")
	require.NotNil(t, rec.Footer)
	assert.Equal(t, 5, rec.Footer.Viable)
	assert.Equal(t, 6, rec.Footer.Tried)

	read, err := ReadRecord(cfg.Results)
	require.NoError(t, err)
	assert.Equal(t, rec.Results, read.Results)
	assert.Equal(t, rec.Footer, read.Footer)
	assert.Equal(t, []string{"reference/answer.go", "reference/httpapi/status.go"}, read.Header.Files)
	assert.Equal(t, 6, read.Header.Enumerated)
	data, err := json.Marshal(read.Header.Killers)
	require.NoError(t, err)
	assert.Contains(t, string(data), "{target} {reports}")
}

// TestRunStopsAtTheWantedNumberOfViableMutants: --size counts viable
// mutants, in the seed's order.
func TestRunStopsAtTheWantedNumberOfViableMutants(t *testing.T) {
	t.Parallel()
	cfg := fixtureConfig(t, "check")
	cfg.Size = 1
	cfg.Bound = time.Minute
	all, err := Enumerate(cfg.Root, []string{"reference/answer.go", "reference/httpapi/status.go"})
	require.NoError(t, err)
	ordered := Order(all, cfg.Seed)
	rec, err := Run(t.Context(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, rec.Results)
	assert.Equal(t, 1, rec.Footer.Viable)
	for i, r := range rec.Results {
		assert.Equal(t, ordered[i].ID(), r.ID, "tried out of the seed's order")
	}
	assert.NotEqual(t, NotViable, rec.Results[len(rec.Results)-1].Status)
}

// TestRunRefusesAKillerThatFailsTheReference: such a killer would kill
// every mutant, so the run stops before the first.
func TestRunRefusesAKillerThatFailsTheReference(t *testing.T) {
	t.Parallel()
	cfg := fixtureConfig(t, "fail")
	_, err := Run(t.Context(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fails the reference as it is")
	assert.Contains(t, err.Error(), "RESULT: FAIL")
}

func TestParseKiller(t *testing.T) {
	t.Parallel()
	k, err := ParseKiller(DefaultKiller)
	require.NoError(t, err)
	assert.Equal(t, "conformance", k.Name)
	assert.Equal(t, "bin/conformance", k.Command[0])
	assert.Equal(t, DefaultKiller, k.String())
	k, err = ParseKiller("bin/conformance generate --target {target} --seed 1")
	require.NoError(t, err)
	assert.Equal(t, "conformance", k.Name)
	_, err = ParseKiller("run=bin/conformance --profile profiles/reference.yaml")
	require.Error(t, err, "a killer that does not aim at the mutant")
	_, err = ParseKiller("run=")
	require.Error(t, err)
}
