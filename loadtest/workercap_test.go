package loadtest

import (
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/stretchr/testify/assert"
)

func TestDefaultWorkerCap(t *testing.T) {
	t.Parallel()
	const s = time.Second
	cases := []struct {
		name string
		lp   pacing.LoadProfile
		to   time.Duration
		wave int
		want int
	}{
		{"rate × timeout", pacing.LoadProfile{Pacing: pacing.Constant, Rate: 200}, 2 * s, 0, 400},
		{"a slow rate keeps the floor", pacing.LoadProfile{Pacing: pacing.Constant, Rate: 1}, 5 * s, 0, minDefaultWorkers},
		{"a fast rate is bounded", pacing.LoadProfile{Pacing: pacing.Constant, Rate: 5000}, 5 * s, 0, maxDefaultWorkers},
		{"a wave fits", pacing.LoadProfile{Pacing: pacing.Constant, Rate: 1}, s, 100, 100},
		{"a ramp's end", pacing.LoadProfile{Pacing: pacing.Linear, Rate: 500, EndRate: 100}, s, 0, 500},
		{"a sine's crest", pacing.LoadProfile{Pacing: pacing.Sine, Rate: 100, Amplitude: 50}, s, 0, 150},
		{"the busiest stage", pacing.LoadProfile{Pacing: pacing.Stages, Stages: []pacing.LoadProfile{
			{Pacing: pacing.Constant, Rate: 90}, {Pacing: pacing.Linear, Rate: 90, EndRate: 300}, {Pacing: pacing.Constant, Rate: 80},
		}}, s, 0, 300},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, defaultWorkerCap(tc.lp, tc.to, tc.wave), tc.name)
	}
}
