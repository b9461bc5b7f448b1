package loadtest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/reference"
)

// TestARecordedRunReconcilesFromItsLedgerFile: a reconciled run's
// look-ups read and rewrite ledger.jsonl, each created id's look-up beside
// its first created request, and its reconciliation, read from the file,
// is clean against the reference and finds the duplicates of a racy
// duplicate check.
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
			rec, rep := runIn(t, dir, startReference(t, tc.fault...), tc.opts...)
			r := rep.Reconciliation
			require.NotNil(t, r)
			lookedUp := map[string]bool{}
			for _, p := range recordtest.Payments(t, rec) {
				if p.Lookup != nil {
					assert.False(t, lookedUp[p.ID], "%s looked up once", p.ID)
					assert.Equal(t, record.OutcomeCreated, p.Outcome, "beside a created request")
					lookedUp[p.ID] = true
				}
			}
			assert.Len(t, lookedUp, r.LookedUp)
			assert.Positive(t, r.Created)
			assert.Equal(t, r.Created, r.LookedUp, "every created id looked up")
			if tc.fault == nil {
				requireNoFailure(t, rep)
			} else {
				assert.Positive(t, r.Duplicates, text(t, rep))
			}
		})
	}
}
