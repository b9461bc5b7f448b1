package loadtest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/variants"
)

// startVariant serves a variant, with the given reference faults, on
// 127.0.0.1 and returns its profile; with lose above 0, one payment answer
// in lose is lost (loseAnswers).
func startVariant(tb testing.TB, v variants.Variant, lose int64, faults ...reference.Fault) *profiles.Profile {
	tb.Helper()
	p, _ := startDouble(tb, v, lose, faults...)
	return p
}

// startDouble is startVariant, and returns the double served.
func startDouble(tb testing.TB, v variants.Variant, lose int64, faults ...reference.Fault) (*profiles.Profile, *variants.Double) {
	tb.Helper()
	d, err := v.Double(faults...)
	require.NoError(tb, err)
	var h http.Handler = d
	if lose > 0 {
		h = loseAnswers(h, lose)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return profiles.Reference(srv.URL), d
}

// TestLoadTesterPassesVariantServers runs a short mixed attack, a short
// idempotency attack (reused partner_trx_ids in waves) and a short retry
// attack (one payment answer in eight lost, retried with the same id; the
// history check on), a few hundred requests in all, against each variant
// (a server that differs from the reference only where the document allows
// it): the contract checks, the create and retry checks, the history check
// and the reconciliation find no violation, and the attacks read at least
// one answer the variant changed (unless the load tester cannot see it).
func TestLoadTesterPassesVariantServers(t *testing.T) {
	sweep.NoRace(t)
	t.Parallel()
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			var changes int64
			for _, tc := range []struct {
				lose int64
				opts []loadtest.Option
			}{
				{0, []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithLoad(constant(80, time.Second))}},
				{0, []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8), loadtest.WithLoad(constant(48, time.Second))}},
				{8, []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioRetry), loadtest.WithRetry(3, 500*time.Millisecond, 20*time.Millisecond),
					loadtest.WithLoad(constant(40, time.Second)), loadtest.WithHistory(true)}},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				before := throttledBy(v)
				p, d := startDouble(t, v, tc.lose)
				rec, err := newTester(p, tc.opts...).Run(ctx, t.TempDir())
				cancel()
				changes += d.Changed()
				require.NoError(t, err)
				rep := judge(t, rec, lossyThresholds...)
				if v.Throttled != nil {
					assert.Greater(t, throttledBy(v), before, "the variant throttled the run")
					assert.Positive(t, rep.Throttled, "the attack was throttled: its first payment, at least")
				}
				out := text(t, rep)
				requireNoFailure(t, rep)
				assert.Equal(t, 0, rep.Contract.Violations, out)
				require.NotNil(t, rep.Reconciliation)
				for id, n := range rep.Reconciliation.Counts {
					assert.Zero(t, n, "invariant %s: %s", id, out)
				}
				if rep.History != nil {
					assert.True(t, rep.History.Passed(), rep.History.String())
				}
			}
			t.Logf("the double changed %d answers", changes)
			assert.NoError(t, v.CheckChanged(variants.LoadTester, changes))
		})
	}
}

// throttledBy is how many answers v has throttled so far (0 for a variant
// without a rate limit).
func throttledBy(v variants.Variant) int64 {
	if v.Throttled == nil {
		return 0
	}
	return v.Throttled.Load()
}

// TestLoadTesterCatchesAWrongVariant: a legal variant that also debits the
// wallet again for a reused partner_trx_id it refuses with 409 (a refused
// request takes nothing) fails the balance reconciliation.
func TestLoadTesterCatchesAWrongVariant(t *testing.T) {
	t.Parallel()
	v, ok := variants.Named("the methods list includes the internal id 0")
	require.True(t, ok)
	p := startVariant(t, v, 0, reference.FaultRetryDebitsAgain)
	p.LoadCustomers = p.LoadCustomers[:1]
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}), loadtest.WithLoad(constant(120, time.Second)))
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Positive(t, rep.Reconciliation.Counts[verdict.InvBalance], out)
}
