package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// historyOp is the i-th operation of a test history: a created payment.
func historyOp(i int) HistoryOp {
	return HistoryOp{Client: i % 64, Phase: PhaseAttack, Op: OpCreate, Account: "load_customers[" + strconv.Itoa(i%8) + "]",
		ID: "run-0-" + strconv.Itoa(i), Invoke: int64(1e18) + int64(i)*1000, Return: int64(1e18) + int64(i)*1000 + 500,
		Code: 200, Outcome: OutcomeCreated, Amount: &Amount{Total: 1500, BalanceUsed: 1500}}
}

// TestAHistoryFileHoldsWhatAddWasGiven: operations added concurrently to a
// history file are all in it, written as encoding/json encodes them, and
// the run that Close hands them to reads them from the file.
func TestAHistoryFileHoldsWhatAddWasGiven(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, err := NewHistory(dir)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < 400; i += 4 {
				h.Add(historyOp(i))
			}
		}()
	}
	wg.Wait()
	o := Run{parts: []part{{dir: dir}}}
	require.NoError(t, h.Close(&o))
	h.Discard() // nothing after Close
	assert.Error(t, h.Close(&o), "closed twice")
	require.True(t, o.HasHistory())
	seen := map[string]HistoryOp{}
	require.NoError(t, o.EachHistoryOp(func(op *HistoryOp) error { seen[op.ID] = *op; return nil }))
	require.Len(t, seen, 400)
	assert.Equal(t, historyOp(17), seen["run-0-17"])

	var line strings.Builder
	op := historyOp(3)
	require.NoError(t, json.NewEncoder(&line).Encode(&op))
	file, err := os.ReadFile(filepath.Join(dir, FileHistory))
	require.NoError(t, err)
	assert.Contains(t, string(file), line.String(), "the line encoding/json writes")
}

// BenchmarkHistoryAdd measures the heap a history retains per operation
// added, streamed to the history file. Run it with
// `go test -run '^$' -bench HistoryAdd -benchtime 1x ./loadtest/record/`.
func BenchmarkHistoryAdd(b *testing.B) {
	const n = 200_000
	var retained float64
	for range b.N {
		h, err := NewHistory(b.TempDir())
		require.NoError(b, err)
		base := heapAfterGC()
		for i := range n {
			h.Add(historyOp(i))
		}
		retained += (float64(heapAfterGC()) - float64(base)) / n
		var o Run
		require.NoError(b, h.Close(&o))
	}
	b.ReportMetric(retained/float64(b.N), "retained-B/op")
}
