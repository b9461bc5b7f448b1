package loadtest_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/variants"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
)

// startVariant serves a variant, with the given reference faults, on
// 127.0.0.1 and returns its profile.
func startVariant(tb testing.TB, v variants.Variant, faults ...reference.Fault) *profiles.Profile {
	tb.Helper()
	h, err := v.Handler(faults...)
	require.NoError(tb, err)
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

// TestLoadTesterPassesVariantServers runs a short mixed attack and a short
// idempotency attack (reused partner_trx_ids in waves), a few hundred
// requests in all, against each variant (a server that differs from the
// reference only where the document allows it): the contract checks, the
// create and retry checks and the reconciliation find no violation.
func TestLoadTesterPassesVariantServers(t *testing.T) {
	t.Parallel()
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			for _, opts := range [][]loadtest.Option{
				{loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithLoad(constant(150, time.Second))},
				{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8), loadtest.WithLoad(constant(120, time.Second))},
			} {
				o, rep := run(t, startVariant(t, v), opts...)
				out := text(t, rep)
				require.True(t, rep.Passed, "%s\n%s", v.Why, out)
				assert.Equal(t, 0, rep.Contract.Violations, out)
				require.NotNil(t, o.Reconciliation)
				for id, n := range o.Reconciliation.Counts {
					assert.Zero(t, n, "invariant %s: %s", id, out)
				}
			}
		})
	}
}

// TestLoadTesterCatchesAWrongVariant: a legal variant that also debits the
// wallet again for a reused partner_trx_id it refuses with 409 (a refused
// request takes nothing) fails the balance reconciliation.
func TestLoadTesterCatchesAWrongVariant(t *testing.T) {
	t.Parallel()
	v, ok := variants.Named("the methods list includes the internal id 0")
	require.True(t, ok)
	p := startVariant(t, v, reference.FaultRetryDebitsAgain)
	p.LoadCustomers = p.LoadCustomers[:1]
	o, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
		loadtest.WithPaymentMix(loadtest.Weights{loadtest.KindBalance: 1}), loadtest.WithLoad(constant(120, time.Second)))
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Positive(t, o.Reconciliation.Counts[loadtest.InvBalance], out)
}
