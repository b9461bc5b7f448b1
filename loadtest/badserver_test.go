package loadtest_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
)

// hangingTarget never answers until the client gives up.
func hangingTarget(t *testing.T) *profiles.Profile {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return profiles.Reference(srv.URL)
}

var oneProduct = &loadtest.Catalog{Products: []loadtest.Product{{ID: 1001, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300}}}

func TestHangingServerTimesOutAsUncertain(t *testing.T) {
	t.Parallel()
	o, rep := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(20, 300*time.Millisecond)), loadtest.WithTimeout(100*time.Millisecond))
	require.NotEmpty(t, o.Results)
	assert.Equal(t, len(o.Results), rep.Uncertain)
	for _, p := range o.Ledger {
		assert.Equal(t, loadtest.OutcomeUncertain, p.Outcome)
		assert.Equal(t, "timeout", p.Message)
	}
	assert.False(t, rep.Passed) // nothing got the expected answer
}

func TestDrainTimeoutAbandonsInFlightRequests(t *testing.T) {
	t.Parallel()
	o, rep := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(20, 200*time.Millisecond)), loadtest.WithTimeout(time.Minute),
		loadtest.WithDrain(50*time.Millisecond))
	assert.Greater(t, o.Generator.Abandoned, int64(0))
	assert.Equal(t, len(o.Results), rep.Uncertain)
}

func TestUncertainRequestsAreBoundedInReconciliation(t *testing.T) {
	t.Parallel()
	// Against a hanging server with reconciliation on, the wallet reads fail
	// too: the run still ends, and reports what it could not reconcile.
	o, _ := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct),
		loadtest.WithLoad(constant(20, 200*time.Millisecond)), loadtest.WithTimeout(100*time.Millisecond))
	require.NotNil(t, o.Reconciliation)
	assert.Equal(t, len(o.Ledger), o.Reconciliation.Uncertain)
	for _, a := range o.Reconciliation.Accounts {
		assert.NotEmpty(t, a.Skipped)
	}
}
