package generative

import (
	"flag"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// rapid (v1.3) reads its budget from its command-line flags, package
// globals: there are no per-call options. Two runs of the generated mode
// share them without serialising each other, because rapid reads each
// flag at a known moment:
//
//   - rapid.checks and rapid.seed when a check starts, before its first
//     example: a batch holds rapidFlags.start from setting them until its
//     first example runs (checkBatch), a moment later;
//   - rapid.steps at each stateful sequence, and rapid.shrinktime when a
//     failure starts shrinking: a property holds them for the whole of its
//     check (holdRapid). Properties that ask for the same steps and shrink
//     time run side by side; one that asks for others waits until those
//     are done.
//
// The flags are written through flag.Lookup(…).Value, not flag.Set, so
// that no write touches the flag set's own map.
var rapidFlags struct {
	init    sync.Once
	mu      sync.Mutex
	changed *sync.Cond // signalled when holders falls to 0
	current rapidSettings
	holders int
	start   sync.Mutex
}

// rapidSettings are the flags a property holds for the whole of its check.
type rapidSettings struct {
	steps      int
	shrinkTime time.Duration
}

// holdRapid holds rapid's steps and shrink time at s until the returned
// release is called, waiting while checks with other settings run.
func holdRapid(s rapidSettings) (release func()) {
	rapidFlags.init.Do(func() {
		// rapid asks testing.Short, which needs the testing flags
		// registered and the command line parsed (a run outside `go test`).
		if !flag.Parsed() {
			testing.Init()
			_ = flag.CommandLine.Parse(nil)
		}
		setRapidFlag("rapid.nofailfile", "true")
		rapidFlags.changed = sync.NewCond(&rapidFlags.mu)
	})
	rapidFlags.mu.Lock()
	defer rapidFlags.mu.Unlock()
	for rapidFlags.holders > 0 && rapidFlags.current != s {
		rapidFlags.changed.Wait()
	}
	if rapidFlags.current != s {
		setRapidFlag("rapid.steps", strconv.Itoa(s.steps))
		setRapidFlag("rapid.shrinktime", s.shrinkTime.String())
		rapidFlags.current = s
	}
	rapidFlags.holders++
	var once sync.Once
	return func() {
		once.Do(func() {
			rapidFlags.mu.Lock()
			defer rapidFlags.mu.Unlock()
			if rapidFlags.holders--; rapidFlags.holders == 0 {
				rapidFlags.changed.Broadcast()
			}
		})
	}
}

// checkBatch runs n examples of prop from seed, as one rapid.Check. The
// caller holds its settings (holdRapid).
func checkBatch(tb rapid.TB, n int, seed uint64, prop func(*rapid.T)) {
	rapidFlags.start.Lock()
	var once sync.Once
	read := func() { once.Do(rapidFlags.start.Unlock) }
	defer read() // rapid returned without running an example
	setRapidFlag("rapid.checks", strconv.Itoa(n))
	setRapidFlag("rapid.seed", strconv.FormatUint(seed, 10))
	rapid.Check(tb, func(t *rapid.T) {
		read() // rapid has read checks and seed
		prop(t)
	})
}

func setRapidFlag(name, value string) {
	f := flag.Lookup(name)
	if f == nil {
		panic("generative: rapid flag " + name + " is not registered") // rapid registers its flags in its init
	}
	if err := f.Value.Set(value); err != nil {
		panic("generative: rapid flag " + name + ": " + err.Error())
	}
}
