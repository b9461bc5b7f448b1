package reference

import (
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// diskFiles opens the files of a state directory on d.
func diskFiles(d *referencetest.Disk) OpenFunc {
	return func(name string, flag int, perm fs.FileMode) (StateFile, error) {
		f, err := d.Open(name, flag, perm)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}

// someDisks are the two ways a full disk answers a write it cannot hold.
var someDisks = map[string]func(dir string) *referencetest.Disk{
	"a disk that writes what fits": func(dir string) *referencetest.Disk { return referencetest.NewDisk(dir, 1<<30) },
	"a disk that refuses a write that does not fit whole": func(dir string) *referencetest.Disk {
		return referencetest.NewDisk(dir, 1<<30).WholeWrites()
	},
}

// bigPayment is a payment whose frame needs more than the journal's first
// preallocated zeros (its parts alone are 70 KiB).
func bigPayment(trxID string) CreatePaymentInput {
	in := payIn(1002, "081234567890", 0, trxID, true, false)
	in.Parts = map[string]any{"note": strings.Repeat("x", 70<<10)}
	return in
}

// TestStateWritesAgainWhenSpaceReturns fills the disk, so that payments
// answer 500, then frees less than the journal's usual preallocation (16
// KiB): the next payment is written (into the zeros that fit, or growing
// the file by its frame alone), and the log says once that writing works
// again, with how many requests were refused meanwhile.
func TestStateWritesAgainWhenSpaceReturns(t *testing.T) {
	t.Parallel()
	for name, newDisk := range someDisks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, clock := t.TempDir(), referencetest.NewClockAtT0()
			disk := newDisk(dir)
			logs := &logRecorder{}
			s := mustOpenState(t, dir, clock, WithStateFiles(diskFiles(disk)), WithLogger(slog.New(logs)))
			c := caller(t, s, referencetest.KeyNusantara, loadToken)
			_, err := s.CreatePayment(c, payIn(1002, "081234567890", 0, "full-before", true, false))
			require.NoError(t, err)

			require.NoError(t, disk.SetFree(0))
			_, err = s.CreatePayment(c, bigPayment("full-big"))
			require.ErrorIs(t, err, ErrInternal, "no room for its frame")
			require.NoError(t, disk.SetFree(0)) // the failure freed the zeros ahead: the filler takes them
			for i := range 3 {
				_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, fmt.Sprintf("full-%d", i), true, false))
				require.ErrorIs(t, err, ErrInternal)
			}
			failed := logs.find("a write failed")
			require.Len(t, failed, 1, "once per episode")
			assert.Equal(t, slog.LevelError, failed[0].Level)
			assert.Empty(t, logs.find("writing works again"))

			require.NoError(t, disk.SetFree(16<<10))
			ok := []string{"full-before"}
			for i := range 3 {
				id := fmt.Sprintf("freed-%d", i)
				_, err = s.CreatePayment(c, payIn(1002, "081234567890", 0, id, true, false))
				require.NoError(t, err, "16 KiB free hold a payment's frame")
				ok = append(ok, id)
			}
			again := logs.find("writing works again")
			require.Len(t, again, 1)
			assert.Equal(t, slog.LevelWarn, again[0].Level)
			assert.Equal(t, int64(4), again[0].Attrs["failed_requests"], "the big payment and three others")
			assert.Len(t, logs.find("a write failed"), 1)
			free, err := disk.Free()
			require.NoError(t, err)
			assert.GreaterOrEqual(t, free, int64(0))

			require.NoError(t, s.Close())
			r := mustOpenState(t, dir, clock)
			snap := takeSnapshot(t, r, nil, append(ok, "full-big", "full-0", "full-1", "full-2"))
			assert.Equal(t, []string{"full-big", "full-0", "full-1", "full-2"}, snap.Missing)
		})
	}
}
