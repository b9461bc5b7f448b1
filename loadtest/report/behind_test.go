package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// TestFellBehindSaysHowMuchAndWhen: a paced run that fell behind says how
// many sends were late, how many were not sent and from when to when; one
// that kept its schedule, or a max-rate run (no schedule), says nothing.
func TestFellBehindSaysHowMuchAndWhen(t *testing.T) {
	t.Parallel()
	g := GeneratorHealth{Generator: record.Generator{Planned: 300_000, Sent: 297_000, WorkerWaits: 1234,
		BehindFrom: 12 * time.Second, BehindUntil: 59100 * time.Millisecond}, MaxWorkers: 5000, Duration: time.Minute,
		LateAfter: 10 * time.Millisecond, Late: 45_000, MaxLateness: 1250 * time.Millisecond}
	assert.Equal(t, "FELL BEHIND its schedule from 12 s to 59.1 s: 45,000 of 297,000 sends more than 10 ms late (worst 1.25 s); "+
		"3,000 of 300,000 scheduled requests not sent; a request waited for one of the 5,000 workers 1,234 times", assess(g, 1).FellBehind)

	kept := GeneratorHealth{Generator: record.Generator{Planned: 1000, Sent: 1000}, LateAfter: 10 * time.Millisecond, Duration: time.Second, Late: 3}
	assert.Empty(t, assess(kept, 1).FellBehind)
	maxRate := GeneratorHealth{Generator: record.Generator{Sent: 1000, WorkerWaits: 5}, MaxWorkers: 8, LateAfter: 10 * time.Millisecond, Duration: time.Second, Late: 900}
	assert.Empty(t, assess(maxRate, 1).FellBehind, "a max-rate run has no schedule to fall behind")
	interrupted := GeneratorHealth{Generator: record.Generator{Planned: 1000, Sent: 100, InterruptedAfter: 100 * time.Millisecond}, LateAfter: 10 * time.Millisecond, Duration: time.Second}
	assert.Empty(t, assess(interrupted, 1).FellBehind, "sends cut short by a stop are not the generator's")
}
