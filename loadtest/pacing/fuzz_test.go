package pacing

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// FuzzParseLoadProfile feeds arbitrary bytes to parseLoadProfile (the
// --load-profile file). It never panics; a profile it accepts is valid,
// within the documented bounds, survives a YAML round trip, and its pacer
// neither panics, nor stops before the first hit, nor schedules more hits in
// the first second than the profile's peak rate.
func FuzzParseLoadProfile(f *testing.F) {
	f.Add([]byte("rate: 50\nduration: 30s\n"))
	f.Add([]byte("pacing: linear\nrate: 0\nend_rate: 400\nduration: 1m\n"))
	f.Add([]byte("pacing: sine\nrate: 50\namplitude: 40\nperiod: 10s\nstart_at: PEAK\nduration: 30s\n"))
	f.Add([]byte("pacing: sine\nrate: 5\namplitude: 40\nperiod: 10s\nduration: 30s\n"))
	f.Add([]byte("rate: .nan\nduration: 1s\n"))
	f.Add([]byte("rate: 1\nduration: 25h\n"))
	f.Add([]byte("rate: 1\nduration: 30\n"))
	f.Add([]byte("rate: 1\nduraton: 1s\n"))
	f.Add([]byte("stages:\n  - {rate: 20, duration: 1s}\n  - {pacing: linear, rate: 20, end_rate: 200, duration: 2s}\n"))
	f.Add([]byte("stages: []\nduration: 1s\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		lp, err := parseLoadProfile(data)
		if err != nil {
			assert.Contains(t, err.Error(), "load profile")
			return
		}
		require.NoError(t, lp.Validate())
		assert.Contains(t, []string{Constant, Linear, Sine, Stages}, lp.Pacing)
		assert.Greater(t, lp.Duration, time.Duration(0))
		assert.LessOrEqual(t, lp.Duration, maxDuration)
		for _, r := range []float64{lp.Rate, lp.EndRate, lp.Amplitude} {
			assert.False(t, math.IsNaN(r) || math.IsInf(r, 0) || r < 0, "rate %g", r)
		}
		_ = lp.String()

		out, err := yaml.Marshal(lp)
		require.NoError(t, err)
		lp2, err := parseLoadProfile(out)
		require.NoError(t, err, "re-encoded profile does not parse:\n%s", out)
		assert.Equal(t, lp, lp2)

		pacer, err := lp.Pacer()
		require.NoError(t, err)
		if lp.Unbounded() {
			return
		}
		_, stop := pacer.Pace(0, 0)
		require.False(t, stop, "the pacer of %s stops before the first hit", lp)
		peak := max(lp.Rate, lp.EndRate, 0.001) + lp.Amplitude
		for _, st := range lp.Stages {
			peak = max(peak, max(st.Rate, st.EndRate)+st.Amplitude)
		}
		window := min(time.Second, lp.Duration)
		limit := int64(math.Ceil(peak*window.Seconds())) + 2
		if limit > 100_000 {
			return // too many hits to walk here; the bounds above still hold
		}
		s := Schedule{Pacer: pacer}
		var hits int64
		for hits <= limit {
			due, ok := s.Next()
			if !ok || due > window {
				break
			}
			hits++
		}
		assert.LessOrEqual(t, hits, limit, "%s schedules more than its peak rate %g/s allows in %s", lp, peak, window)
	})
}

// FuzzParseRate: a rate flag (--rate 100/1s) is read or refused, never
// read as a negative, NaN or infinite rate.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100", "100/1s", "100/s", "6000/1m", "1/500ms", "-1", "NaN", "1e400", "1/0s", "5/1e-9s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			assert.Contains(t, err.Error(), "rate")
			return
		}
		assert.False(t, math.IsNaN(r) || math.IsInf(r, 0) || r < 0, "%q read as %g", s, r)
	})
}
