package loadtest_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/reference"
)

// TestClassCountsMatchViolationsFile: against a reference that accepts a
// reused partner_trx_id and loses concurrent debits, an idempotency run
// fails in several classes (ids created more than once, broken waves,
// wallet mismatches). Every class the page, report.json and the text lead
// with counts exactly the lines of its class in violations.jsonl, and
// every line of the file belongs to a class they show.
func TestClassCountsMatchViolationsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startReference(t, reference.FaultDuplicateTrxAccepted, reference.FaultLostUpdateDebit)
	o, rep := runIn(t, dir, p, loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
		loadtest.WithLoad(constant(160, time.Second)))
	require.NoError(t, report.WriteArtifacts(dir, o, rep))
	require.False(t, rep.Passed, text(t, rep))

	inFile := violationsByClass(t, filepath.Join(dir, report.FileViolations))
	require.NotZero(t, inFile[verdict.ClassDuplicate], "the fault made duplicate debits: %v", inFile)
	require.NotZero(t, inFile[verdict.ClassIdempotency], "and broke waves: %v", inFile)

	var saved report.Report
	data, err := os.ReadFile(filepath.Join(dir, report.FileReport))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &saved))
	lines := map[string]int{}
	for _, l := range saved.Verdict {
		lines[l.Class] = l.Count
	}
	assert.Equal(t, inFile, lines, "report.json's class counts are the file's")

	page, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
	require.NoError(t, err)
	shown := map[string]int{}
	for _, m := range regexp.MustCompile(`data-class="([^"]+)"><summary><b>[^<]+</b>: ([0-9,]+)</summary>`).FindAllStringSubmatch(string(page), -1) {
		n, err := strconv.Atoi(regexp.MustCompile(`,`).ReplaceAllString(m[2], ""))
		require.NoError(t, err)
		shown[m[1]] = n
	}
	assert.Equal(t, inFile, shown, "the page's ids by class are the file's")
}

// violationsByClass counts the lines of a violations.jsonl by class.
func violationsByClass(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	by := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e verdict.Entry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		by[e.Class]++
	}
	require.NoError(t, sc.Err())
	return by
}
