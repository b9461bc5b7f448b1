package httpapi

import (
	"flag"
	"os"
	"testing"
)

// TestMain gives the property tests (pgregory.net/rapid) 1,000 cases each
// unless -rapid.checks is given: the default 100 misses some departures of
// the fast path that 1,000 find.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if !given {
		if err := flag.Set("rapid.checks", "1000"); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
