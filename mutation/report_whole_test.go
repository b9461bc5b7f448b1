package mutation

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLedgerReportCountsOnlyCurrentVerdicts: the score is over the
// verdicts judged with today's file and killer; a verdict of a changed
// file is left to try again, a mutant without one never tried; each part
// is listed with its date and commit, and each file with its positions.
func TestLedgerReportCountsOnlyCurrentVerdicts(t *testing.T) {
	t.Parallel()
	killed := result("reference/a.go", "a < b", "a <= b", Killed)
	lived := result("reference/a.go", "c < d", "c >= d", Survived)
	stale := result("reference/b.go", "e < f", "e >= f", Killed)
	untried := result("reference/b.go", "g < h", "g >= h", Killed)
	src := &Source{Files: []string{"reference/a.go", "reference/b.go"},
		Mutants:    []Mutant{killed.Mutant, lived.Mutant, stale.Mutant, untried.Mutant},
		FileHashes: map[string]string{"reference/a.go": "aaaa", "reference/b.go": "bbbb"}, KillerHash: "kkkk"}
	started := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	led := &Ledger{
		Parts: []Part{
			{ID: 1, Started: started, Commit: "0123456789ab", KillerHash: "kkkk", Ended: endedLimit, Seconds: 90,
				Judging: Judging{Killers: []string{DefaultKiller}, BoundSec: 60, Baseline: []float64{2.5}}},
			{ID: 2, Started: started.Add(time.Hour), Commit: "ba9876543210", KillerHash: "kkkk",
				Judging: Judging{Killers: []string{DefaultKiller}, BoundSec: 60, Baseline: []float64{2.5}}},
		},
		Entries: []Entry{
			{Result: killed, Part: 1, FileHash: "aaaa", KillerHash: "kkkk"},
			{Result: lived, Part: 2, FileHash: "aaaa", KillerHash: "kkkk"},
			{Result: stale, Part: 1, FileHash: "old", KillerHash: "kkkk"},
		},
	}
	cls, err := ParseClassifications([]byte(entry(lived, Equivalent, "")))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteLedgerReport(&buf, led, src, cls))
	doc := buf.String()

	assert.Contains(t, doc, "**100.0 % of the judged mutants killed: 1 of 1** (goal: 95 %), over the 2 positions of 4 with a current")
	assert.Contains(t, doc, "| tried, with a current verdict | 2 (50.0 %) |")
	assert.Contains(t, doc, "| left: never tried | 1 |")
	assert.Contains(t, doc, "| left: tried with another file or killer, to try again | 1 |")
	assert.Contains(t, doc, "| **viable** | **2** (50.0 % of about 4 viable positions, estimated from those tried) |")
	assert.Contains(t, doc, "| 1 | 2026-11-29 08:00:00 UTC | `0123456789ab` | `kkkk` | 2 | 1 | limit | 1m30s |")
	assert.Contains(t, doc, "| 2 | 2026-11-29 09:00:00 UTC | `ba9876543210` | `kkkk` | 1 | 1 | cut short | – |")
	assert.Contains(t, doc, "(passes the reference as it is in 2.5 s)")
	assert.Contains(t, doc, "| `reference/a.go` | 2 | 2 | 2 | 1 | 1 |")
	assert.Contains(t, doc, "| `reference/b.go` | 2 | 0 | 0 | 0 |", "a file without a current verdict is listed")
	assert.Contains(t, doc, "| **all** | 4 | 2 | 2 | 1 | 1 |")
	assert.Contains(t, doc, "Resume: `make mutation` tries the 2 positions left")
	killedSection := doc[strings.Index(doc, "## Killed mutants"):]
	assert.NotContains(t, killedSection, "e < f", "a stale verdict is not counted")
	assert.Contains(t, doc, "None in the ledger.")
}
