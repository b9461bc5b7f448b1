package reference

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestStateStartsOnAFullDisk starts a store on a disk with no room left:
// over a journal with no zeros after its frames, over a new state
// directory, and over a journal due for compaction. The start goes on and
// says why at Error; the store serves what the journal holds; a change
// answers 500 until space returns, and then is written, logged once.
func TestStateStartsOnAFullDisk(t *testing.T) {
	t.Parallel()
	for name, journal := range map[string]func(t *testing.T) (dir string, tokens, trxIDs []string){
		"a journal with no zeros after its frames": func(t *testing.T) (string, []string, []string) {
			dir, _, tokens, trxIDs := closedJournal(t)
			return dir, tokens, trxIDs
		},
		"a new state directory": func(t *testing.T) (string, []string, []string) {
			return t.TempDir(), []string{referencetest.TokFunded}, nil
		},
		"a journal due for compaction": func(t *testing.T) (string, []string, []string) {
			dir, clock, tokens, trxIDs := closedJournal(t)
			s := mustOpenState(t, dir, clock)
			main := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)
			for n := range compactAfter + 100 { // more than the data set's accounts over compactAfter
				_, err := s.Provision(main, ProvisionInput{Name: fmt.Sprintf("Nama %d", n), PhoneNumber: "081299990001", Email: "baru@example.com"})
				require.NoError(t, err)
			}
			require.NoError(t, s.Close())
			return dir, tokens, trxIDs
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, tokens, trxIDs := journal(t)
			clock := referencetest.NewClockAtT0()
			path := filepath.Join(dir, JournalName)
			var want snapshot
			if _, err := os.Stat(path); err == nil {
				want = takeSnapshot(t, replayPrefix(t, dir, -1, clock), tokens, trxIDs)
				require.NoError(t, os.Truncate(path, journalEnd(t, path))) // as a failed write leaves it
			} else {
				want = takeSnapshot(t, mustOpenState(t, t.TempDir(), clock), tokens, trxIDs)
			}
			disk := referencetest.NewDisk(dir, 0)
			require.NoError(t, disk.SetFree(0))

			logs := &logRecorder{}
			s, err := openStateStore(t, dir, clock, WithStateFiles(diskFiles(disk)), WithLogger(slog.New(logs)))
			require.NoError(t, err, "a full disk does not stop the start")
			t.Cleanup(func() { _ = s.Close() })
			started := logs.find("no room for the journal's next frames at the start")
			require.Len(t, started, 1)
			assert.Equal(t, slog.LevelError, started[0].Level)
			assert.ErrorIs(t, started[0].Attrs["error"].(error), syscall.ENOSPC, "the log says why")
			if name == "a journal due for compaction" {
				require.Len(t, logs.find("compacting failed"), 1)
				assert.Equal(t, slog.LevelError, logs.find("compacting failed")[0].Level)
				assert.NoFileExists(t, path+".compact", "the copy that did not fit is removed")
			}
			assert.Equal(t, want, takeSnapshot(t, s, tokens, trxIDs), "the start serves what the journal holds")

			funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
			_, err = s.CreatePayment(funded, payIn(1002, "081234567890", 0, "full-start", true, false))
			require.ErrorIs(t, err, ErrInternal, "a change answers 500 while the disk is full")
			assert.Equal(t, want, takeSnapshot(t, s, tokens, trxIDs), "and changes nothing")
			assert.Empty(t, logs.find("a write failed"), "the episode's failure was logged at the start")

			require.NoError(t, disk.SetFree(64<<10))
			_, err = s.CreatePayment(funded, payIn(1002, "081234567890", 0, "full-start", true, false))
			require.NoError(t, err, "space returned")
			again := logs.find("writing works again")
			require.Len(t, again, 1)
			assert.Equal(t, int64(1), again[0].Attrs["failed_requests"])
			trxIDs = append(trxIDs, "full-start")
			after := takeSnapshot(t, s, tokens, trxIDs)
			require.NoError(t, s.Close())
			assert.Equal(t, after, takeSnapshot(t, mustOpenState(t, dir, clock), tokens, trxIDs), "and the journal opens again")
		})
	}
}

// TestStateStartsOnANearlyFullDisk starts where the disk has no room for
// the journal's usual preallocation but the journal holds 1,000 zeros of
// its own: the start warns that the disk is nearly full, opens no episode
// of failures, and the next payments are written into those zeros.
func TestStateStartsOnANearlyFullDisk(t *testing.T) {
	t.Parallel()
	dir, clock, tokens, trxIDs := closedJournal(t)
	path := filepath.Join(dir, JournalName)
	require.NoError(t, os.Truncate(path, journalEnd(t, path)+1000))
	disk := referencetest.NewDisk(dir, 0)
	require.NoError(t, disk.SetFree(0))

	logs := &logRecorder{}
	s := mustOpenState(t, dir, clock, WithStateFiles(diskFiles(disk)), WithLogger(slog.New(logs)))
	warned := logs.find("the disk is nearly full")
	require.Len(t, warned, 1)
	assert.Equal(t, slog.LevelWarn, warned[0].Level)
	assert.Equal(t, int64(1000), warned[0].Attrs["preallocated_bytes"])
	assert.Empty(t, logs.find("no room"))
	funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	for i := range 3 {
		id := fmt.Sprintf("nearly-full-%d", i)
		_, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, id, true, false))
		require.NoError(t, err)
		trxIDs = append(trxIDs, id)
	}
	assert.Empty(t, logs.find("writing works again"), "no episode began")
	want := takeSnapshot(t, s, tokens, trxIDs)
	require.NoError(t, s.Close())
	assert.Equal(t, want, takeSnapshot(t, mustOpenState(t, dir, clock), tokens, trxIDs))
}
