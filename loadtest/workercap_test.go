package loadtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDefaultWorkerCap(t *testing.T) {
	t.Parallel()
	const s = time.Second
	cases := []struct {
		name string
		lp   LoadProfile
		to   time.Duration
		wave int
		want int
	}{
		{"rate × timeout", LoadProfile{Pacing: PacingConstant, Rate: 200}, 2 * s, 0, 400},
		{"a slow rate keeps the floor", LoadProfile{Pacing: PacingConstant, Rate: 1}, 5 * s, 0, MinDefaultWorkers},
		{"a fast rate is bounded", LoadProfile{Pacing: PacingConstant, Rate: 5000}, 5 * s, 0, MaxDefaultWorkers},
		{"a wave fits", LoadProfile{Pacing: PacingConstant, Rate: 1}, s, 100, 100},
		{"a ramp's end", LoadProfile{Pacing: PacingLinear, Rate: 500, EndRate: 100}, s, 0, 500},
		{"a sine's crest", LoadProfile{Pacing: PacingSine, Rate: 100, Amplitude: 50}, s, 0, 150},
		{"the busiest stage", LoadProfile{Pacing: PacingStages, Stages: []LoadProfile{
			{Pacing: PacingConstant, Rate: 90}, {Pacing: PacingLinear, Rate: 90, EndRate: 300}, {Pacing: PacingConstant, Rate: 80},
		}}, s, 0, 300},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, defaultWorkerCap(tc.lp, tc.to, tc.wave), tc.name)
	}
}
