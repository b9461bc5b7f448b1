package loadtest

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/variants"
)

// TestWalletReadsWaitOutThrottlingExceptDuringTheAttack: against a gateway
// that throttles the first request of each operation (503, Retry-After:
// 0), a wallet read before or after the attack waits the throttled answer
// out through the client's gate and reads the wallet; a read of the
// history check during the attack is a read that failed, and holds
// nothing off (the attack spends the target's allowance, and the pace the
// gate learns is the reconciliation's).
func TestWalletReadsWaitOutThrottlingExceptDuringTheAttack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		phase     string
		read      bool
		throttled int64
	}{
		{record.PhaseBefore, true, 1},
		{record.PhaseAfter, true, 1},
		{record.PhaseAttack, false, 0},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			t.Parallel()
			gateway := variants.Throttles()
			h, err := gateway.Handler()
			require.NoError(t, err)
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			p := profiles.Reference(srv.URL)
			cl, err := newClient(p, 0, DefaultTimeout, transport.Options{})
			require.NoError(t, err)
			defer cl.close()
			hist, err := record.NewHistory(t.TempDir())
			require.NoError(t, err)
			defer hist.Discard()
			_, err = readWallet(t.Context(), cl, hist, Account{Key: "funded", auth: bearer(p.MainToken)}, 0, tc.phase)
			assert.Equal(t, tc.read, err == nil, "%v", err)
			assert.Equal(t, tc.throttled, cl.gate.Summary().Throttled)
			assert.EqualValues(t, 1, gateway.Throttled.Load(), "the gateway throttled the first read")
		})
	}
}
