package reference

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// TestWalletTakenWhenPaid: with the option, a payment that leaves a
// remainder to a gateway reports the balance it takes but leaves it in the
// wallet, which a later payment spends; a payment fully covered by balance
// and coins takes them at once, as without it.
func TestWalletTakenWhenPaid(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t, WithWalletTakenWhenPaid())
	c := caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit)
	// 6300 - 1500 balance leaves 4800 for QRIS (minimum 1000).
	mixed, err := s.CreatePayment(c, payIn(1001, "081234567890", 1, "mixed", true, false))
	require.NoError(t, err)
	assert.Equal(t, Amount{Total: 6300, BalanceUsed: 1500, GatewayPayment: 4800}, mixed.Amount)
	b, co := wallet(s, 12)
	assert.Equal(t, int64(1500), b, "the gateway part is unpaid: the balance stays")
	assert.Equal(t, int64(10_000_000), co)

	covered, err := s.CreatePayment(c, payIn(1001, "081234567890", 0, "covered", true, true))
	require.NoError(t, err)
	assert.Equal(t, Amount{Total: 6300, BalanceUsed: 1500, CoinUsed: 9600, CoinValueUsed: 4800}, covered.Amount, "the balance it kept is spent")
	b, co = wallet(s, 12)
	assert.Zero(t, b)
	assert.Equal(t, int64(10_000_000-9600), co)
}

// TestWalletTakenWhenPaidReplays: a journal written with the option
// replays to the same wallets, and a start without it is refused (its
// wallets would differ).
func TestWalletTakenWhenPaidReplays(t *testing.T) {
	t.Parallel()
	dir, clock := t.TempDir(), referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock, WithWalletTakenWhenPaid())
	_, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit), payIn(1001, "081234567890", 1, "mixed", true, false))
	require.NoError(t, err)
	require.NoError(t, s.Close())

	r := mustOpenState(t, dir, clock, WithWalletTakenWhenPaid())
	b, _ := wallet(r, 12)
	assert.Equal(t, int64(1500), b)
	require.NoError(t, r.Close())

	_, err = openStateStore(t, dir, clock)
	require.ErrorIs(t, err, errStateMismatch)
	assert.Contains(t, err.Error(), "--wallet-when-paid true (this start: false)")
}
