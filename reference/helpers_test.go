package reference

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// newTestStore builds a store over the embedded data set with a clock at
// referencetest.T0. httpapi's tests have their own: referencetest cannot
// import reference while these tests are internal.
func newTestStore(tb testing.TB, opts ...Option) (*Store, *referencetest.Clock) {
	tb.Helper()
	ds, err := DefaultDataset()
	require.NoError(tb, err)
	clock := referencetest.NewClockAtT0()
	s, err := NewStore(ds, append([]Option{WithClock(clock.Now)}, opts...)...)
	require.NoError(tb, err)
	return s, clock
}

// caller authenticates a token of the embedded data set.
func caller(tb testing.TB, s *Store, key, token string) Caller {
	tb.Helper()
	c, err := s.Authenticate(key, token, Access{Token: true})
	require.NoError(tb, err)
	return c
}

// wallet reads an account's wallet.
func wallet(s *Store, id int64) (balance, coins int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accounts[id].balance, s.accounts[id].coins
}

// payIn is a create payment input.
func payIn(product int64, msisdn string, method int64, trxID string, useBalance, useCoin bool) CreatePaymentInput {
	return CreatePaymentInput{ProductID: product, Msisdn: msisdn, PaymentMethodID: &method, PartnerTrxID: trxID, UseBalance: useBalance, UseCoin: useCoin}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
