package loadtest_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// startSmallFunded serves the reference seeded with testdata/small-funded.yaml:
// two load customers holding Rp 60,000 (and 20,000 coins) and Rp 45,000.
func startSmallFunded(t *testing.T) *profiles.Profile {
	t.Helper()
	ds, err := reference.LoadDataset("testdata/small-funded.yaml")
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.DiscardHandler), st))
	t.Cleanup(srv.Close)
	p, err := profiles.Load("testdata/small-funded-profile.yaml")
	require.NoError(t, err)
	p.BaseURL = srv.URL
	return p
}

// TestExhaustedWalletsAreReportedNotFailed: a run
// that spends the small wallets dry reports exhaustion plainly, with no
// invariant violation and no failure: the 422s are the document's answer.
func TestExhaustedWalletsAreReportedNotFailed(t *testing.T) {
	t.Parallel()
	_, rep := run(t, startSmallFunded(t), loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 3, record.KindCoins: 1}),
		loadtest.WithLoad(constant(100, time.Second)))
	out := text(t, rep)
	require.NotNil(t, rep.Reconciliation)
	assert.True(t, rep.Reconciliation.Passed(), "%+v", rep.Reconciliation.Violations)
	require.NotNil(t, rep.Funds, out)
	assert.True(t, rep.Funds.Short, "the plan warns before the run: %s", rep.Funds)
	assert.Less(t, rep.Funds.DryAfter, 500*time.Millisecond, "%s", rep.Funds)
	require.NotNil(t, rep.Exhaustion, out)
	assert.True(t, rep.Exhaustion.Exhausted(), "%+v", rep.Exhaustion)
	assert.Positive(t, rep.Exhaustion.Refused)
	assert.Contains(t, out, "load customers exhausted")
	require.NotEmpty(t, rep.Errors)
	assert.Equal(t, "HTTP 422: Saldo dan koin tidak mencukupi.", rep.Errors[0].Error)
	assert.Equal(t, rep.Exhaustion.Refused, rep.Errors[0].Count)
	assert.Contains(t, rep.Errors[0].Example, "partner_trx_id ")
	requireNoFailure(t, rep)
}

// TestWhenDryGatewayPaysTheRestThroughGateways: with --when-dry gateway the
// payments an account can no longer afford go through a gateway, and none
// is refused for want of money.
func TestWhenDryGatewayPaysTheRestThroughGateways(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startSmallFunded(t), loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}), loadtest.WithWhenDry(record.DryGateway),
		loadtest.WithLoad(constant(100, time.Second)))
	kinds := map[string]int{}
	for _, p := range recordtest.Payments(t, rec) {
		kinds[p.Kind]++
	}
	assert.Positive(t, kinds[record.KindBalance])
	assert.Positive(t, kinds[record.KindGateway], "%v", kinds)
	assert.Nil(t, rep.Exhaustion, "no payment was refused for want of money")
	requireNoFailure(t, rep)
}

// TestWhenDryStopEndsTheAttack: with --when-dry stop the attack ends when
// an account runs dry; the run is not failed, nor the generator blamed.
func TestWhenDryStopEndsTheAttack(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startSmallFunded(t), loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}), loadtest.WithWhenDry(record.DryStop),
		loadtest.WithLoad(constant(100, 5*time.Second)))
	assert.Positive(t, rec.Generator.StoppedDryAfter)
	assert.Less(t, rec.Generator.Sent, rec.Generator.Planned/2)
	for _, r := range rep.Generator.Reasons {
		assert.NotContains(t, r, "scheduled requests")
	}
	assert.Contains(t, text(t, rep), "could afford no product")
	requireNoFailure(t, rep)
}

// TestReadsOwnWalletsOnTheReference: on the default reference (rich load
// customers) the plan is not short and nothing is refused.
func TestFundsPlanOnTheReference(t *testing.T) {
	t.Parallel()
	_, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, 300*time.Millisecond)))
	require.NotNil(t, rep.Funds)
	assert.False(t, rep.Funds.Short)
	assert.True(t, strings.HasPrefix(rep.Funds.Source, "wallets"))
	assert.Nil(t, rep.Exhaustion)
}
