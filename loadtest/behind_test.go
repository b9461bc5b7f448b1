package loadtest_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
)

// TestARunThatFallsBehindStaysBounded: when what consumes the results
// stalls (here the collector, held by its progress callback for 2 s: a
// starved CPU does the same), every worker soon waits to hand its result
// over. Without a cap the generator started a worker for every hit due
// (thousands here, gigabytes in an hour's soak); with the default cap, the
// rate × the timeout, it waits for a worker at the cap, counts the waits
// and the late sends, and the run says it fell behind, and since when.
func TestARunThatFallsBehindStaysBounded(t *testing.T) {
	t.Parallel()
	var once sync.Once
	var shown atomic.Int64 // when the progress line said it fell behind
	stall := func(p loadtest.Progress) {
		once.Do(func() { time.Sleep(2200 * time.Millisecond) })
		shown.Store(int64(p.BehindFrom))
	}
	o, rep := run(t, fastTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(3000, 2*time.Second)), loadtest.WithTimeout(50*time.Millisecond),
		loadtest.WithProgress(10*time.Millisecond, stall))
	g := o.Generator
	require.Equal(t, 150, o.Meta.MaxWorkers, "the default cap: 3,000/s × 50 ms")
	assert.LessOrEqual(t, g.PeakWorkers, int64(o.Meta.MaxWorkers), "workers; %+v", g)
	assert.Positive(t, g.WorkerWaits, "hits that waited for a worker at the cap; %+v", g)
	assert.Positive(t, rep.Generator.Late, "late sends; %+v", rep.Generator)
	assert.Positive(t, g.BehindFrom, "when it fell behind; %+v", g)
	assert.GreaterOrEqual(t, g.BehindUntil, g.BehindFrom, "%+v", g)
	assert.Equal(t, g.BehindFrom, time.Duration(shown.Load()), "the progress line says so too")
	assert.True(t, rep.Generator.Limited, "%+v", rep.Generator)
	assert.Contains(t, strings.Join(rep.Generator.Reasons, "\n"), "all 150 workers were busy")
	assert.Regexp(t, `\n  FELL BEHIND its schedule from [0-9.]+ m?s to [0-9.]+ m?s: [0-9,]+ of [0-9,]+ sends more than 10 ms late \(worst [^)]+\).*; `+
		`a request waited for one of the 150 workers [0-9,]+ times\n`, text(t, rep))
}
