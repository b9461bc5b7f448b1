package sweep

import (
	"testing"
)

// TestNoRaceSkipsOnlyUnderRace: a sweep runs without the race detector and
// is skipped with it, unless EnvUnderRace is set.
func TestNoRaceSkipsOnlyUnderRace(t *testing.T) {
	for _, env := range []string{"", "1"} {
		t.Run("env="+env, func(t *testing.T) {
			t.Setenv(EnvUnderRace, env)
			ran := false
			t.Run("sweep", func(t *testing.T) {
				NoRace(t)
				ran = true
			})
			if want := !raceEnabled || env != ""; ran != want {
				t.Errorf("race detector %v, %s=%q: ran %v, want %v", raceEnabled, EnvUnderRace, env, ran, want)
			}
		})
	}
}
