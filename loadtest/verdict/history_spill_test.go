package verdict

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// historyFile is a history file read one operation at a time, as a
// recorded run's.
type historyFile string

func (f historyFile) EachHistoryOp(fn func(*record.HistoryOp) error) error {
	in, err := os.Open(string(f))
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // opened read-only
	return record.EachHistoryOp(in, fn)
}

// historyFileSource writes ops to a history file and returns it.
func historyFileSource(tb testing.TB, ops []record.HistoryOp) historyFile {
	tb.Helper()
	return historyFile(writeTempFile(tb, record.FileHistory, func(w io.Writer) error { return writeLines(w, ops) }))
}

// spillHistory is a history of 8 accounts with, besides answered payments
// and reads, payments whose answers were lost (one found by a status
// look-up, one a later send said used, one never resolved) and, when
// illegal, two accounts whose reads no serial order explains, the later
// of which begins its failing segment at the same instant as the first.
func spillHistory(illegal bool) []record.HistoryOp {
	ops := syntheticHistory(1500, 8, 500_000, 1_000_000)
	end := ops[len(ops)-1].Invoke + 10_000_000
	for i, acct := range []string{"A", "B", "C"} {
		id := "lost-" + strconv.Itoa(i)
		at := end + int64(i)*1_000_000
		ops = append(ops, hPay(7, acct, id, at, 0, record.OutcomeUncertain, 0, 0))
		switch i {
		case 0:
			ops = append(ops, hStatus(acct, id, at+500_000, at+600_000, 200, 100))
		case 1:
			ops = append(ops, hPay(8, acct, id, at+500_000, at+600_000, record.OutcomeDuplicate, 0, 0))
		}
	}
	if illegal {
		at := end + 10_000_000
		for _, acct := range []string{"F", "E"} { // E's and F's segments start together: E names the verdict
			ops = append(ops, hRead(2000, acct, at, at+1, 5, 5), hRead(2001, acct, at+10, at+11, 7, 7))
		}
	}
	return ops
}

// TestAHistoryCheckedFromFileAsInMemory: a history read from its file,
// grouped in memory or spilled to buckets (and buckets spilled again), is
// judged as the whole history in memory is: same verdict, counts, account
// and unexplained operation. A grouping that split an account from its
// payments, or one payment's requests across buckets, would change the
// counts of debits, accounts or segments, or the verdict.
func TestAHistoryCheckedFromFileAsInMemory(t *testing.T) {
	t.Parallel()
	for _, illegal := range []bool{false, true} {
		ops := spillHistory(illegal)
		want := CheckHistory(ops, DefaultHistoryTimeout)
		require.Equal(t, map[bool]string{false: HistoryOK, true: HistoryIllegal}[illegal], want.Verdict, want.String())
		src := historyFileSource(t, ops)
		for _, most := range []int{len(ops), 400, 4} {
			got, err := checkHistory(src, DefaultHistoryTimeout, most)
			require.NoError(t, err)
			assert.Equal(t, want.failing != nil, got.failing != nil)
			want.Elapsed, got.Elapsed, got.failing = 0, 0, want.failing
			assert.Equal(t, want, got, "grouped by at most %d operations", most)
		}
	}
}

// TestAHistoryFileThatCannotBeReadFailsTheCheck: the check reports a
// history it cannot read rather than judging part of it.
func TestAHistoryFileThatCannotBeReadFailsTheCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), record.FileHistory)
	require.NoError(t, os.WriteFile(path, []byte("{\"client\":1,\"op\":\"profile\"}\n{\"client\":"), 0o600))
	_, err := checkHistory(historyFile(path), DefaultHistoryTimeout, spillAfter)
	assert.ErrorContains(t, err, "history operation 2")
}

// BenchmarkCheckHistoryFromFile measures the most heap the history check
// holds, per operation, while it checks a recorded history of 200,000
// operations over 64 accounts: read whole into memory and checked (as
// before the history streamed), or checked from its file, spilled to
// buckets. Run it with
// `go test -run '^$' -bench CheckHistoryFromFile -benchtime 1x ./loadtest/verdict/`.
func BenchmarkCheckHistoryFromFile(b *testing.B) {
	const n = 200_000
	// The history goes out of scope once written, so that only the
	// check's own heap is measured.
	src := historyFileSource(b, syntheticHistory(n, 64, 100_000, 100_000))
	runtime.GC()
	for _, bc := range []struct {
		name  string
		check func() (*HistoryCheck, error)
	}{
		{"in-memory", func() (*HistoryCheck, error) {
			var all []record.HistoryOp
			if err := src.EachHistoryOp(func(op *record.HistoryOp) error { all = append(all, *op); return nil }); err != nil {
				return nil, err
			}
			return CheckHistory(all, benchHistoryTimeout), nil
		}},
		{"from-file", func() (*HistoryCheck, error) { return checkHistory(src, benchHistoryTimeout, spillAfter) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var peak float64
			for range b.N {
				var hc *HistoryCheck
				var err error
				peak += float64(peakHeapDuring(func() { hc, err = bc.check() })) / n
				require.NoError(b, err)
				require.Equal(b, HistoryOK, hc.Verdict, hc.String())
			}
			b.ReportMetric(peak/float64(b.N), "peak-B/op")
		})
	}
}
