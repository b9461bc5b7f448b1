package reference

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// Credentials of the embedded data set.
const (
	keyNusantara = "sk-nusantara-7f3a9c"
	keyWarung    = "sk-warung-41d2e8"
	keyNonaktif  = "sk-nonaktif-9b0c11"

	tokMain     = "tok-nusantara-main"
	tokFunded   = "tok-nusantara-funded"
	tokSplit    = "tok-nusantara-split"
	tokEmpty    = "tok-nusantara-empty"
	tokBroken   = "tok-nusantara-broken-wallet"
	tokWarung   = "tok-warung-main"
	tokWarungC  = "tok-warung-funded"
	tokNonaktif = "tok-nonaktif-main"
)

// t0 is the fake clock's start: 2026-11-22 08:30:00 WIB.
var t0 = time.Date(2026, 11, 22, 8, 30, 0, 0, wib)

// fakeClock is a clock tests move by hand.
type fakeClock = referencetest.Clock

func newFakeClock() *fakeClock { return referencetest.NewClock(t0) }

// newTestStore builds a store over the embedded data set with a fake clock.
func newTestStore(tb testing.TB, opts ...Option) (*Store, *fakeClock) {
	tb.Helper()
	ds, err := DefaultDataset()
	require.NoError(tb, err)
	clock := newFakeClock()
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

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
