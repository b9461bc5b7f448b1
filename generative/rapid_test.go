package generative

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// draws runs n examples from seed with steps and returns what each drew:
// the first value and the length of a stateful sequence.
func draws(settings rapidSettings, n int, seed uint64) []string {
	defer holdRapid(settings)()
	var got []string
	checkBatch(&captureTB{name: "draws"}, n, seed, func(t *rapid.T) {
		v := rapid.Uint64().Draw(t, "v")
		length := 0
		t.Repeat(map[string]func(*rapid.T){"step": func(*rapid.T) { length++ }})
		got = append(got, fmt.Sprint(v, "/", length))
	})
	return got
}

// TestRapidRunsSideBySide: checks that run at once each get their own
// number of examples, seed and steps, and draw what they draw alone. With
// holdRapid not waiting it fails on the steps ("14130/0" for "14130/10");
// with checkBatch's start lock removed, the race detector (make test) fails
// it on rapid's checks and seed.
func TestRapidRunsSideBySide(t *testing.T) {
	type run struct {
		settings rapidSettings
		n        int
		seed     uint64
	}
	runs := []run{
		{rapidSettings{25, time.Second}, 3, 1}, {rapidSettings{25, time.Second}, 7, 2},
		{rapidSettings{2, time.Second}, 5, 3}, {rapidSettings{200, 2 * time.Second}, 4, 1},
	}
	alone := make([][]string, len(runs))
	for i, r := range runs {
		alone[i] = draws(r.settings, r.n, r.seed)
		require.Len(t, alone[i], r.n)
	}
	assert.NotEqual(t, alone[0][0], alone[1][0], "another seed draws otherwise")
	for range 5 {
		together := make([][]string, len(runs)*4)
		var wg sync.WaitGroup
		for i := range together {
			r := runs[i%len(runs)]
			wg.Go(func() { together[i] = draws(r.settings, r.n, r.seed) })
		}
		wg.Wait()
		for i, got := range together {
			assert.Equal(t, alone[i%len(runs)], got, "run %d side by side draws what it draws alone", i%len(runs))
		}
	}
}

// TestRapidSettingsAreHeld: a check with other steps or shrink time waits
// until those holding theirs are done; one with the same ones does not.
func TestRapidSettingsAreHeld(t *testing.T) {
	a := rapidSettings{25, time.Second}
	release := holdRapid(a)
	holdRapid(a)() // the same settings: not kept waiting
	held := make(chan struct{})
	go func() {
		defer holdRapid(rapidSettings{3, time.Second})()
		close(held)
	}()
	select {
	case <-held:
		t.Fatal("other steps were set while a check held its own")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	<-held
}
