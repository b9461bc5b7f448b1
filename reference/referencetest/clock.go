// Package referencetest holds what the tests of the reference domain and of
// its HTTP layer share, as net/http/httptest does for net/http.
//
// It imports nothing from reference: the reference's own tests are internal
// (they read unexported state), and Go refuses an internal test that imports
// a package importing the package under test. What needs a reference.Store
// (building one over the embedded data set, reading a wallet) therefore stays
// beside each package's tests, built on the clock and start time here.
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
