package reference

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
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
