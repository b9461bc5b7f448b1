package mutation

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func result(file, orig, mutd string, st Status) Result {
	m := Mutant{Key: Key{File: file, Func: "f", Original: orig, Mutated: mutd}, Operator: ConditionalsNegation, Line: 7}
	r := Result{Mutant: m, ID: m.ID(), Status: st}
	if st == Killed {
		r.KilledBy, r.Because = "conformance", "payments.feature:85 Balance is used first"
	}
	if st == NotViable {
		r.BuildError = "x.go:1: nope"
	}
	return r
}

func entry(r Result, class Class, extra string) string {
	return fmt.Sprintf("- file: %s\n  func: f\n  original: '%s'\n  mutated: '%s'\n  class: %s\n  why: reason of %s.\n%s",
		r.File, r.Original, r.Mutated, class, r.Original, extra)
}

// sampleRecord is a run with one mutant of each kind the report tells
// apart.
func sampleRecord(t *testing.T) (*Record, *Classifications) {
	t.Helper()
	rs := []Result{
		result("reference/a.go", "x || a == b", "x || a != b", Killed),
		result("reference/a.go", "c == d", "c != d", Killed),
		result("reference/a.go", "e || f", "e && f", Survived), // equivalent
		result("reference/b.go", "g < h", "g <= h", Survived),  // open choice
		result("reference/b.go", "i < j", "i >= j", Survived),  // load only
		result("reference/b.go", "k < l", "k >= l", Survived),  // missed, still alive
		result("reference/b.go", "m < n", "m >= n", Survived),  // not classified
		result("reference/b.go", "o < p", "o >= p", Killed),    // missed, now checked
		result("reference/b.go", "q < r", "q >= r", Killed),    // classified equivalent, yet killed
		result("reference/b.go", "s + t", "s - t", NotViable),
	}
	rs[3].Outcomes = []Outcome{{Warnings: []string{"reading default-page-size"}}}
	yaml := entry(rs[2], Equivalent, "") +
		entry(rs[3], OpenChoice, "  sentence: '\"pageSize\" default: not shown.'\n") +
		entry(rs[4], LoadOnly, "  load: 'loadtest --profile x: 3 duplicate debits.'\n") +
		entry(rs[5], Missed, "  check: 'features/limits.feature: a new scenario.'\n") +
		entry(rs[7], Missed, "  check: 'features/payments.feature: Coins pay the rest.'\n") +
		entry(rs[8], Equivalent, "")
	cls, err := ParseClassifications([]byte(yaml))
	require.NoError(t, err)
	rec := &Record{Header: Header{Seed: 1, Size: 9, Files: []string{"reference/a.go", "reference/b.go", "reference/c.go"}, Enumerated: 99,
		Judging: Judging{Killers: []string{DefaultKiller}, BoundSec: 60, Baseline: []float64{1.5}}, Commit: "abc", Note: "A note on the killers."}, Results: rs,
		Footer: &Footer{Seconds: 100, Viable: 9, Tried: 10}}
	return rec, cls
}

// TestScoreLeavesOutEquivalentMutantsAndOpenChoices: the score is the
// killed share of the viable mutants that are neither; every other
// survivor, classified or not, counts against it.
func TestScoreLeavesOutEquivalentMutantsAndOpenChoices(t *testing.T) {
	t.Parallel()
	rec, cls := sampleRecord(t)
	tally := Count(rec.Results, cls)
	assert.Equal(t, 10, tally.Tried)
	assert.Equal(t, 1, tally.NotViable)
	assert.Equal(t, 9, tally.Viable)
	assert.Equal(t, 4, tally.Killed)
	assert.Equal(t, 5, tally.Survived)
	assert.Equal(t, map[Class]int{Equivalent: 1, OpenChoice: 1, LoadOnly: 1, Missed: 1}, tally.Survivors)
	assert.Equal(t, 1, tally.Unclassified)
	assert.Equal(t, 7, tally.Judged())
	assert.InDelta(t, 4.0/7, tally.Score(), 1e-9)
	assert.Equal(t, map[string]int{"conformance": 4}, tally.KilledBy)
	assert.Zero(t, Count(nil, cls).Score())
}

func TestReportTellsEverySurvivorWithItsClass(t *testing.T) {
	t.Parallel()
	rec, cls := sampleRecord(t)
	var buf bytes.Buffer
	require.NoError(t, WriteReport(&buf, rec, cls))
	doc := buf.String()
	section := func(title string) string {
		i := strings.Index(doc, title)
		require.GreaterOrEqual(t, i, 0, title)
		rest := doc[i+len(title):]
		if j := strings.Index(rest, "\n#"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	assert.Contains(t, doc, "**57.1 % of the judged mutants killed: 4 of 7** (goal: 95 %)")
	assert.Contains(t, section("## Score"), "\nA note on the killers.\n")
	unclassified := section("### Not classified yet (1)")
	assert.Contains(t, unclassified, "`m < n` → `m >= n`")
	assert.Contains(t, unclassified, "original: 'm < n'", "the key to paste into the file")
	assert.Contains(t, section("### A rule the run missed (1)"), "Check added: features/limits.feature")
	assert.Contains(t, section("### Observable only under load (1)"), "Under load: loadtest --profile x: 3 duplicate debits.")
	open := section("### A choice the document leaves open (1)")
	assert.Contains(t, open, `The document: "pageSize" default: not shown.`)
	assert.Contains(t, open, "The run warned of it (reading default-page-size not followed; --strict fails it).")
	assert.Contains(t, section("### Equivalent (1)"), "reason of e || f.")
	now := section("## Rules found missing, now checked")
	assert.Contains(t, now, "`o < p` → `o >= p`")
	assert.Contains(t, now, "Killed by conformance: payments.feature:85")
	assert.NotContains(t, now, "k < l", "a missed rule still alive is not checked yet")
	assert.Contains(t, section("## Classified as surviving, yet killed (1)"), "`q < r` → `q >= r` (classified equivalent)")
	assert.Contains(t, section("## Per file"), "| `reference/b.go` | 6 | 2 | 0 | 1 | 1 | 1 | 1 | 40.0 % |")
	assert.NotContains(t, section("## Per file"), "reference/c.go", "a file without a viable mutant")
	assert.Contains(t, section("## Killed mutants"), "`c == d` → `c != d`")
	assert.Contains(t, section("## Not viable (1)"), "x.go:1: nope")
	assert.Contains(t, section("## Killed mutants"), "`x \\|\\| a == b` → `x \\|\\| a != b`", "pipes escaped in tables")
}

func TestCodeSpansHoldBackticks(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "`a`", code("a"))
	assert.Equal(t, "``x `y` z``", code("x `y` z"))
	assert.Equal(t, "`` `raw` ``", code("`raw`"))
}
