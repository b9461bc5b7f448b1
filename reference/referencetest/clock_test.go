package referencetest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

func TestClockMovesOnlyWhenAdvanced(t *testing.T) {
	start := time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)
	c := referencetest.NewClock(start)
	assert.Equal(t, start, c.Now())
	assert.Equal(t, start, c.Now(), "time stands still")
	c.Advance(90 * time.Second)
	assert.Equal(t, start.Add(90*time.Second), c.Now())
}
