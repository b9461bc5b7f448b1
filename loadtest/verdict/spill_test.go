package verdict

import (
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
)

// syntheticLedger is n created payments of two accounts, each id once, but
// for a few planted faults: ids created twice, a wave with two created and
// an uncertain id; and the snapshots that reconcile them.
func syntheticLedger(n int) ([]record.Payment, []record.AccountSnapshot) {
	ps := make([]record.Payment, 0, n+8)
	var spent [2]int64
	for i := range n {
		acct := i % 2
		ps = append(ps, recordtest.Created("run-0-"+strconv.Itoa(i), uint64(i), []string{"A", "B"}[acct], 100, 0))
		spent[acct] += 100
	}
	ps = append(ps, recordtest.Created("run-0-7", 7, "B", 100, 0), recordtest.Created("run-0-12", 12, "A", 100, 0)) // created twice
	ps = append(ps, wave(2, recordtest.Created("run-0-w", uint64(n+1), "A", 50, 0), recordtest.Created("run-0-w", uint64(n+2), "A", 50, 0))...)
	ps = append(ps, uncertainPayment("run-0-u", uint64(n+3), 70))
	spent[0] += 100 + 100 + 70 // twice-created 12 and both of the wave: more than the bounds
	spent[1] += 100
	return ps, []record.AccountSnapshot{recordtest.Snapshot("A", 0, 1e9, 0, 1e9-spent[0], 0), recordtest.Snapshot("B", 0, 1e9, 0, 1e9-spent[1], 0)}
}

// ledgerFile is a ledger file read one entry at a time, as a recorded
// run's.
type ledgerFile string

func (f ledgerFile) EachPayment(fn func(*record.Payment) error) error {
	return record.ReadLedgerFile(string(f), fn)
}

// ledgerFileSource writes ps to a ledger file and returns it.
func ledgerFileSource(tb testing.TB, ps []record.Payment) ledgerFile {
	tb.Helper()
	return ledgerFile(writeTempFile(tb, record.FileLedger, func(w io.Writer) error { return writeLines(w, ps) }))
}

// writeTempFile writes the file name in a temporary directory with write
// and returns its path.
func writeTempFile(tb testing.TB, name string, write func(io.Writer) error) string {
	tb.Helper()
	dir := tb.TempDir()
	require.NoError(tb, record.WriteFile(dir, name, write))
	return filepath.Join(dir, name)
}

// TestASpilledLedgerReconcilesAsInMemory: a ledger too long to group in
// memory is reconciled bucket by bucket, with the verdict the whole ledger
// in memory gives (the violations listed in another order), and so is one
// whose buckets are too long in turn.
func TestASpilledLedgerReconcilesAsInMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ n, most int }{
		{spillAfter + 1000, spillAfter},
		{2000, 4}, // buckets of about 8: each is spilled again
	} {
		ps, snaps := syntheticLedger(tc.n)
		want := Reconcile(ps, snaps, true)
		require.Positive(t, want.Counts[InvUniqueID], "the planted faults are found")
		require.Positive(t, want.Counts[InvBalance])
		got, err := reconcile(ledgerFileSource(t, ps), snaps, true, tc.most)
		require.NoError(t, err)
		assert.ElementsMatch(t, want.Violations, got.Violations)
		got.Violations = want.Violations
		assert.Equal(t, want, got)
	}
}

// BenchmarkReconcileFromFile measures the most heap reconciliation holds
// while it reads a recorded ledger of 200,000 payments, per payment: with
// the ledger spilled to buckets it is about a bucket's share, where
// grouping the whole ledger held about 0.5 KB per payment.
func BenchmarkReconcileFromFile(b *testing.B) {
	const n = 200_000
	// The ledger in memory is gone once its file is written: only the
	// reconciliation's own heap is measured.
	src, snaps := func() (ledgerFile, []record.AccountSnapshot) {
		ps, snaps := syntheticLedger(n)
		return ledgerFileSource(b, ps), snaps
	}()
	var peak float64
	for range b.N {
		var r *Reconciliation
		var err error
		peak += float64(peakHeapDuring(func() { r, err = reconcile(src, snaps, true, spillAfter) })) / n
		require.NoError(b, err)
		require.Equal(b, n+2, r.IDs) // with the wave and the uncertain id
	}
	b.ReportMetric(peak/float64(b.N), "peak-B/payment")
}

// peakHeapDuring runs fn and returns the most heap in use while it ran
// (sampled every millisecond) above the heap in use before it.
func peakHeapDuring(fn func()) int64 {
	base := recordtest.HeapAfterGC()
	var most atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			most.Store(max(most.Load(), ms.HeapInuse))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-sampled
	return int64(most.Load()) - int64(base)
}
