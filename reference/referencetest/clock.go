// Package referencetest holds what the tests of the reference domain and of
// its HTTP layer share, as net/http/httptest does for net/http: a clock moved
// by hand and its start T0, the embedded data set's credentials, the
// process CPU time, and a small disk to fill and free under a state
// directory (Disk).
//
// It imports nothing from reference, and so cannot hold the helpers that
// need a reference type: newTestStore (a Store over the embedded data set on
// a Clock), payIn (a CreatePaymentInput) and wallet. The tests of reference
// that call them are internal (package reference): crash_test.go,
// state_test.go, store_test.go and transactions_test.go read unexported state
// (Store.mu, Store.accounts, the transaction arena, the journal's frames),
// so they cannot become package reference_test; and Go refuses an internal
// test that imports a package importing the package under test. A package
// of these helpers importing reference would serve reference/httpapi's tests
// only, and reference's tests would still need their own copy. So each
// package's helpers_test.go keeps its three: newTestStore and payIn are
// the same few lines in both; wallet is not, reference's reading the account
// under Store.mu, reference/httpapi's through Store.Profile as a caller does.
package referencetest

import (
	"sync"
	"time"
)

// T0 is where a test clock starts: 2026-11-22 08:30:00 WIB, the zone of
// every time the reference shows. Compare times with time.Time.Equal (or
// assert.WithinDuration), not ==: the reference holds its own WIB location.
var T0 = time.Date(2026, 11, 22, 8, 30, 0, 0, time.FixedZone("WIB", 7*60*60))

// Clock is a clock tests move by hand; it is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// NewClockAtT0 returns a clock standing at T0.
func NewClockAtT0() *Clock { return NewClock(T0) }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
