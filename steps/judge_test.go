package steps

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestJudgeBudgetScales: the judges after the scenarios share what the
// scenarios leave of the run's budget: less when the scenarios took long,
// never less than a quarter of the budget, more with a bigger budget, the
// last judge taking what is left; no budget leaves each judge its own.
func TestJudgeBudgetScales(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		budget, taken time.Duration
		left          int
		want          time.Duration
	}{
		{"quick scenarios, two judges to run", time.Minute, 2 * time.Second, 2, 29 * time.Second},
		{"quick scenarios, the last judge", time.Minute, 2 * time.Second, 1, 58 * time.Second},
		{"slow scenarios leave less", time.Minute, 40 * time.Second, 1, 20 * time.Second},
		{"scenarios past the budget leave a quarter", time.Minute, 5 * time.Minute, 1, 15 * time.Second},
		{"a bigger budget gives more", 5 * time.Minute, 40 * time.Second, 1, 260 * time.Second},
		{"no budget", 0, time.Second, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, judgeBudget(tc.budget, tc.taken, tc.left))
		})
	}
}
