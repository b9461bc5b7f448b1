package readable

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestNumbersReadAsNumbers: counts and rupiah with thousands separators,
// durations rounded to three significant digits in their unit.
func TestNumbersReadAsNumbers(t *testing.T) {
	t.Parallel()
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 31840000: "31,840,000", -1234567: "-1,234,567"} {
		assert.Equal(t, want, Thousands(in))
	}
	for in, want := range map[time.Duration]string{
		0: "0", 83119910 * time.Nanosecond: "83.1 ms", 1500 * time.Millisecond: "1.5 s", 2 * time.Second: "2 s",
		512 * time.Microsecond: "512 µs", 7 * time.Nanosecond: "7 ns", 150 * time.Second: "2m30s", 980 * time.Microsecond: "980 µs",
	} {
		assert.Equal(t, want, Duration(in), "%d ns", int64(in))
	}
	assert.Equal(t, "none", Cap(0))
	assert.Equal(t, "2,000 to 3,000", Span(2000, 3000))
}

func TestPlural(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "1 reading", Plural(1, "reading", "readings"))
	assert.Equal(t, "0 readings", Plural(0, "reading", "readings"))
	assert.Equal(t, "12 properties", Plural(int64(12), "property", "properties"))
}
