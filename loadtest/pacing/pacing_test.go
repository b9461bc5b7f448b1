package pacing

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLoadProfile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		yaml    string
		want    LoadProfile
		planned int64
		err     string
	}{
		{name: "constant", yaml: "rate: 50\nduration: 2s\n",
			want: LoadProfile{Pacing: Constant, Rate: 50, Duration: 2 * time.Second}, planned: 100},
		{name: "linear", yaml: "pacing: linear\nrate: 10\nend_rate: 30\nduration: 10s\n",
			want: LoadProfile{Pacing: Linear, Rate: 10, EndRate: 30, Duration: 10 * time.Second}, planned: 200},
		{name: "sine", yaml: "pacing: sine\nrate: 20\namplitude: 10\nperiod: 5s\nstart_at: peak\nduration: 10s\n",
			want: LoadProfile{Pacing: Sine, Rate: 20, Amplitude: 10, Period: 5 * time.Second, StartAt: "peak", Duration: 10 * time.Second}, planned: 200},
		{name: "max rate", yaml: "rate: 0\nduration: 1s\n", want: LoadProfile{Pacing: Constant, Duration: time.Second}},
		{name: "unknown key", yaml: "rate: 5\nduraton: 1s\n", err: "duraton"},
		{name: "no duration", yaml: "rate: 5\n", err: "duration"},
		{name: "unbounded duration", yaml: "rate: 5\nduration: 48h\n", err: "duration"},
		{name: "negative rate", yaml: "rate: -5\nduration: 1s\n", err: "negative"},
		{name: "bad pacing", yaml: "pacing: square\nrate: 5\nduration: 1s\n", err: "square"},
		{name: "sine without period", yaml: "pacing: sine\nrate: 5\nduration: 1s\n", err: "period"},
		{name: "sine amplitude too big", yaml: "pacing: sine\nrate: 5\namplitude: 6\nperiod: 1s\nduration: 1s\n", err: "amplitude"},
		{name: "bad start_at", yaml: "pacing: sine\nrate: 5\nperiod: 1s\nstart_at: top\nduration: 1s\n", err: "start_at"},
		{name: "not yaml", yaml: "rate: [\n", err: "load profile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lp, err := parseLoadProfile([]byte(tc.yaml))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, lp)
			_, err = lp.Pacer()
			require.NoError(t, err)
			if tc.planned > 0 {
				// The schedule honours the pacing within one hit per second of slack.
				p, err := lp.Pacer()
				require.NoError(t, err)
				s := Schedule{Pacer: p}
				assert.InDelta(t, tc.planned, s.Remaining(lp.Duration), float64(lp.Duration/time.Second)+1)
			}
		})
	}
}

func TestScheduleKeepsDueTimesWhenBehind(t *testing.T) {
	t.Parallel()
	lp := LoadProfile{Pacing: Constant, Rate: 100, Duration: time.Second}
	p, err := lp.Pacer()
	require.NoError(t, err)
	s := Schedule{Pacer: p}
	for n := 1; n <= 100; n++ {
		due, ok := s.Next()
		require.True(t, ok)
		assert.Equal(t, time.Duration(n)*10*time.Millisecond, due, "hit %d", n)
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want float64
		bad  bool
	}{
		{in: "100", want: 100},
		{in: "0", want: 0},
		{in: "0.5", want: 0.5},
		{in: "100/1s", want: 100},
		{in: "100/s", want: 100},
		{in: "6000/1m", want: 100},
		{in: "1/500ms", want: 2},
		{in: " 50 / 2s ", want: 25},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "NaN", bad: true},
		{in: "Inf", bad: true},
		{in: "100/0s", bad: true},
		{in: "100/-1s", bad: true},
		{in: "100/x", bad: true},
		{in: "/1s", bad: true},
		{in: "1e308/1ns", bad: true},
	}
	for _, tc := range cases {
		got, err := ParseRate(tc.in)
		if tc.bad {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.InDelta(t, tc.want, got, 1e-9, tc.in)
	}
}

// TestStagedScheduleRunsEachStageAtItsRate: a load profile of stages runs
// them one after the other, each at its own rate.
func TestStagedScheduleRunsEachStageAtItsRate(t *testing.T) {
	t.Parallel()
	lp, err := parseLoadProfile([]byte("stages:\n  - {rate: 10, duration: 1s}\n  - {rate: 100, duration: 1s}\n  - {pacing: linear, rate: 100, end_rate: 300, duration: 1s}\n"))
	require.NoError(t, err)
	assert.Equal(t, Stages, lp.Pacing)
	assert.Equal(t, 3*time.Second, lp.Duration)
	assert.Contains(t, lp.String(), "3 stages for 3s")
	pacer, err := lp.Pacer()
	require.NoError(t, err)
	s := Schedule{Pacer: pacer}
	perSecond := make([]int, 4)
	for {
		due, ok := s.Next()
		if !ok || due > lp.Duration {
			break
		}
		perSecond[min(3, int(due/time.Second))]++
	}
	assert.InDelta(t, 10, perSecond[0], 1)
	assert.InDelta(t, 100, perSecond[1], 1)
	assert.InDelta(t, 200, perSecond[2], 2) // 100 → 300 linearly: 200 on average
	assert.Zero(t, perSecond[3])

	for _, bad := range []string{
		"stages: []\nduration: 1s\n",
		"stages:\n  - {rate: 0, duration: 1s}\n",                   // a max-rate stage
		"stages:\n  - {rate: 5, duration: 1s}\nduration: 5s\n",     // not the sum
		"stages:\n  - {rate: 5, duration: 1s}\nrate: 5\n",          // a rate outside the stages
		"pacing: constant\nstages:\n  - {rate: 5, duration: 1s}\n", // stages need pacing stages
		"stages:\n  - {stages: [{rate: 5, duration: 1s}], duration: 1s}\n",
	} {
		_, err := parseLoadProfile([]byte(bad))
		assert.Error(t, err, bad)
	}
}
