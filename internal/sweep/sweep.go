// Package sweep marks the tests that run a whole judge against every fault
// or legal double of the reference (a sweep), and the tests that read the
// whole runs a sweep shares (the second pass makes them anyway, where under
// -race a test of a few faults would make them again): what they check is each
// verdict, not the judges' own concurrency, which the other tests check
// under the race detector. Under -race a sweep runs six times slower (the
// generated mode's and the suite's sweeps take about 800 CPU-seconds with it,
// 140 without), so make test runs the packages with sweeps twice: every
// test with -race, the sweeps skipped; then those packages again without
// -race, the sweeps run (Makefile, SWEEP_PACKAGES).
package sweep

import (
	"os"
	"testing"
)

// EnvUnderRace, set to anything, runs the sweeps under -race too.
const EnvUnderRace = "SWEEPS_UNDER_RACE"

// Skipped is the reason a sweep gives when it is skipped under -race.
const Skipped = "a sweep of every fault or double: make test runs it in its second pass, without -race " +
	"(set " + EnvUnderRace + "=1 to run it here)"

// NoRace skips the calling sweep when the race detector is on, unless
// EnvUnderRace is set.
func NoRace(tb testing.TB) {
	tb.Helper()
	if raceEnabled && os.Getenv(EnvUnderRace) == "" {
		tb.Skip(Skipped)
	}
}
