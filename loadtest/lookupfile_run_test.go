package loadtest_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
	"github.com/partnercommerce/conformance/reference"
)

// TestARecordedRunReconcilesFromItsLedgerFile: a reconciled run that
// records to a directory keeps no ledger in memory; its look-ups read and
// rewrite ledger.jsonl, and its reconciliation, read from the file, is the
// one the same ledger gives in memory: clean against the reference, and
// the duplicates of a racy duplicate check found the same.
func TestARecordedRunReconcilesFromItsLedgerFile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		fault []reference.Fault
		opts  []loadtest.Option
	}{
		{"create", nil, []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, time.Second))}},
		{"idempotency", nil, []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
			loadtest.WithLoad(constant(80, time.Second))}},
		{"racy duplicate check", []reference.Fault{reference.FaultRacyDuplicateCheck}, []loadtest.Option{
			loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(32), loadtest.WithLoad(constant(640, time.Second))}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o, rep := run(t, startReference(t, tc.fault...), append(tc.opts, loadtest.WithRecordDir(dir))...)
			assert.Empty(t, o.Ledger, "nothing kept in memory")
			r := rep.Reconciliation
			require.NotNil(t, r)
			f, err := os.Open(filepath.Join(dir, record.FileLedger))
			require.NoError(t, err)
			defer func() { _ = f.Close() }()
			ledger, err := record.ReadLedger(f)
			require.NoError(t, err)
			assert.Equal(t, verdict.Reconcile(ledger, o.Accounts, true), r, "the file's ledger, reconciled in memory")
			assert.Positive(t, r.Created)
			assert.Equal(t, r.Created, r.LookedUp, "every created id looked up")
			if tc.fault == nil {
				assert.True(t, rep.Passed, text(t, rep))
			} else {
				assert.Positive(t, r.Duplicates, text(t, rep))
			}
		})
	}
}
