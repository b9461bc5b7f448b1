package reference

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
	"github.com/partnercommerce/conformance/reference/storage"
)

// openStateStore builds a store over the embedded data set, the fake clock
// and the state directory dir.
func openStateStore(tb testing.TB, dir string, clock *referencetest.Clock, opts ...Option) (*Store, error) {
	tb.Helper()
	ds, err := DefaultDataset()
	require.NoError(tb, err)
	return NewStore(ds, append([]Option{WithClock(clock.Now), WithState(dir)}, opts...)...)
}

func mustOpenState(tb testing.TB, dir string, clock *referencetest.Clock, opts ...Option) *Store {
	tb.Helper()
	s, err := openStateStore(tb, dir, clock, opts...)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// snapshot is what a client can read of a store: the wallets of the given
// tokens and the transactions of the given partner_trx_ids (partner 1).
type snapshot struct {
	Profiles map[string]Profile
	Txs      map[string]Transaction
	Missing  []string
}

func takeSnapshot(tb testing.TB, s *Store, tokens, trxIDs []string) snapshot {
	tb.Helper()
	snap := snapshot{Profiles: map[string]Profile{}, Txs: map[string]Transaction{}}
	for _, tok := range tokens {
		c := caller(tb, s, referencetest.KeyNusantara, tok)
		p, err := s.Profile(c)
		require.NoError(tb, err)
		snap.Profiles[tok] = p
	}
	c := caller(tb, s, referencetest.KeyNusantara, referencetest.TokFunded)
	for _, id := range trxIDs {
		v, err := s.PaymentStatus(c, StatusQuery{PartnerTrxID: ptr(id)})
		if errors.Is(err, ErrTrxNotFound) {
			snap.Missing = append(snap.Missing, id)
			continue
		}
		require.NoError(tb, err, id)
		snap.Txs[id] = v
	}
	return snap
}

// someChanges provisions an account and makes payments of every shape: paid
// from balance, through a gateway (with its token), with promotion, shift
// code and parts. It returns the tokens and partner_trx_ids to read back.
func someChanges(tb testing.TB, s *Store) (tokens, trxIDs []string) {
	tb.Helper()
	main := caller(tb, s, referencetest.KeyNusantara, referencetest.TokMain)
	res, err := s.Provision(main, ProvisionInput{Name: "Cabang Baru", PhoneNumber: "081299990001", Email: "baru@example.com"})
	require.NoError(tb, err)
	_, err = s.Provision(main, ProvisionInput{Name: "Cabang Baru Lagi", PhoneNumber: "081299990001", Email: "lagi@example.com", DeviceID: ptr("pos-7")})
	require.NoError(tb, err)
	funded := caller(tb, s, referencetest.KeyNusantara, referencetest.TokFunded)
	split := caller(tb, s, referencetest.KeyNusantara, referencetest.TokSplit)
	ins := []struct {
		c  Caller
		in CreatePaymentInput
	}{
		{funded, payIn(1002, "081234567890", 0, "st-balance", true, false)},
		{funded, payIn(1002, "081234567891", 1, "st-gateway", false, false)},
		{split, payIn(1002, "081234567892", 0, "st-coins", true, true)},
		{funded, CreatePaymentInput{ProductID: 1002, Msisdn: "0812345678", PaymentMethodID: ptr(int64(2)), PartnerTrxID: "st-extra",
			PromotionID: ptr(int64(7)), ShiftCode: ptr("pagi"), Parts: map[string]any{"k": "v", "n": []any{1.0, "x"}}}},
	}
	for _, x := range ins {
		_, err := s.CreatePayment(x.c, x.in)
		require.NoError(tb, err, x.in.PartnerTrxID)
		trxIDs = append(trxIDs, x.in.PartnerTrxID)
	}
	return []string{referencetest.TokFunded, referencetest.TokSplit, res.Token}, trxIDs
}

func TestStateSurvivesReopen(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	clock := referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	tokens, trxIDs := someChanges(t, s)
	before := takeSnapshot(t, s, tokens, trxIDs)
	extra := s.txs.extras[s.txs.n-1]
	require.NoError(t, s.Close())

	r := mustOpenState(t, dir, clock)
	after := takeSnapshot(t, r, tokens, trxIDs)
	assert.Equal(t, before, after)
	assert.Equal(t, extra, r.txs.extras[r.txs.n-1], "promotion, shift code and parts are kept")
	assert.Empty(t, after.Missing)

	// A payment after the restart continues the ids and numbers.
	v, err := r.CreatePayment(caller(t, r, referencetest.KeyNusantara, referencetest.TokFunded), payIn(1002, "081234567890", 0, "st-next", true, false))
	require.NoError(t, err)
	assert.Equal(t, before.Txs["st-extra"].ID+1, v.ID)
	_, err = r.CreatePayment(caller(t, r, referencetest.KeyNusantara, referencetest.TokFunded), payIn(1002, "081234567890", 0, "st-balance", true, false))
	require.ErrorIs(t, err, ErrTrxIDUsed, "a partner_trx_id used before the restart stays used")

	info, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), "the directory")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the journal alone: the lock is on the directory, not a file")
	info, err = entries[0].Info()
	require.NoError(t, err)
	assert.Equal(t, JournalName, info.Name())
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), info.Name())
}

// frameOffsets lists the offsets of the journal's frames.
func frameOffsets(tb testing.TB, path string) []int64 {
	tb.Helper()
	data, err := os.ReadFile(path)
	require.NoError(tb, err)
	var offs []int64
	for off := 0; off+storage.FrameHeader <= len(data) && string(data[off:off+4]) == storage.FrameMagic; {
		offs = append(offs, int64(off))
		off += storage.FrameHeader + int(binary.LittleEndian.Uint32(data[off+4:]))
	}
	return offs
}

// replayPrefix opens a copy of dir's journal cut at size (the whole file
// for -1).
func replayPrefix(tb testing.TB, dir string, size int64, clock *referencetest.Clock) *Store {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(dir, JournalName))
	require.NoError(tb, err)
	if size >= 0 {
		data = data[:size]
	}
	if size > 0 && size < storage.FrameHeader { // a journal whose header was torn
		data = nil
	}
	cp := tb.(interface{ TempDir() string }).TempDir()
	require.NoError(tb, os.WriteFile(filepath.Join(cp, JournalName), data, 0o600))
	return mustOpenState(tb, cp, clock)
}

// closedJournal makes someChanges in a state directory and closes it.
func closedJournal(t *testing.T) (dir string, clock *referencetest.Clock, tokens, trxIDs []string) {
	t.Helper()
	dir, clock = t.TempDir(), referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	tokens, trxIDs = someChanges(t, s)
	require.NoError(t, s.Close())
	return dir, clock, tokens, trxIDs
}

func TestStateRefusesAnotherDatasetOrTimes(t *testing.T) {
	t.Parallel()
	dir, clock, _, _ := closedJournal(t)

	_, err := openStateStore(t, dir, clock, WithSettleAfter(time.Minute))
	require.ErrorIs(t, err, errStateMismatch)
	assert.Contains(t, err.Error(), "--settle-after 3s --expire-after 15m0s (this start: 1m0s")

	ds, err := DefaultDataset()
	require.NoError(t, err)
	ds.Accounts[0].Balance++
	_, err = NewStore(ds, WithClock(clock.Now), WithState(dir))
	require.ErrorIs(t, err, errStateMismatch)
	assert.Contains(t, err.Error(), "another data set")

	_, err = openStateStore(t, t.TempDir(), clock, WithFaults(FaultMessageTypo))
	require.Error(t, err, "faults are not journaled")
}

// TestStateDirectoryInUseRefuses starts a second store over a directory in
// use, also after every file in it was deleted: the lock is the
// directory's own, so no file can be removed to get around it.
func TestStateDirectoryInUseRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	_, err := openStateStore(t, dir, clock)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in use by another reference server")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
	}
	_, err = openStateStore(t, dir, clock)
	require.Error(t, err, "deleting every file does not let a second server in")
	assert.Contains(t, err.Error(), "in use by another reference server")

	require.NoError(t, s.Close())
	mustOpenState(t, dir, clock)
}

// TestStateLegacyLockFile opens a directory with the lock file of an
// earlier version: left unheld (even 0666) it is removed; held, the start
// is refused.
func TestStateLegacyLockFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := referencetest.NewClockAtT0()
	lock := filepath.Join(dir, "lock")
	require.NoError(t, os.WriteFile(lock, nil, 0o600))
	require.NoError(t, os.Chmod(lock, 0o666))
	held, err := os.Open(lock)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	_, err = openStateStore(t, dir, clock)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in use by another reference server (it holds a lock on "+lock+")")

	require.NoError(t, held.Close())
	require.NoError(t, mustOpenState(t, dir, clock).Close())
	assert.NoFileExists(t, lock)
}

func TestStateReadOnlyDirectoryRefuses(t *testing.T) {
	t.Parallel()
	// The operating system's answer to a write in a read-only directory or
	// file system: root is refused only by a read-only mount, so the files
	// layer gives that answer here.
	readOnly := func(name string, flag int, perm fs.FileMode) (StateFile, error) {
		if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EROFS}
		}
		return storage.OpenFile(name, flag, perm)
	}
	dir := t.TempDir()
	_, err := openStateStore(t, dir, referencetest.NewClockAtT0(), WithStateFiles(readOnly))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state directory "+dir+" is not writable")
	assert.ErrorIs(t, err, syscall.EROFS)

	if os.Geteuid() != 0 {
		ro := t.TempDir()
		require.NoError(t, os.Chmod(ro, 0o500))
		t.Cleanup(func() { _ = os.Chmod(ro, 0o700) })
		_, err := openStateStore(t, ro, referencetest.NewClockAtT0())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "state directory "+ro+" is not writable")
	}
}

// faultyFile is a journal file whose writes or fsyncs fail while failing is
// set: a write writes half its bytes and fails with ENOSPC (a full disk),
// an fsync fails with EIO.
type faultyFile struct {
	StateFile
	failWrite, failSync *atomic.Bool
}

func (f faultyFile) WriteAt(p []byte, off int64) (int, error) {
	if f.failWrite.Load() {
		n, _ := f.StateFile.WriteAt(p[:len(p)/2], off)
		return n, syscall.ENOSPC
	}
	return f.StateFile.WriteAt(p, off)
}

func (f faultyFile) Sync() error {
	if f.failSync.Load() {
		return syscall.EIO
	}
	return f.StateFile.Sync()
}

// faultyFiles opens the files of a state directory, the journal as a
// faultyFile.
func faultyFiles(failWrite, failSync *atomic.Bool) OpenFunc {
	return func(name string, flag int, perm fs.FileMode) (StateFile, error) {
		f, err := storage.OpenFile(name, flag, perm)
		if err != nil || filepath.Base(name) != JournalName {
			return f, err
		}
		return faultyFile{StateFile: f, failWrite: failWrite, failSync: failSync}, nil
	}
}

func TestStateFailedWriteAcknowledgesNothing(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"fsync fails", "disk full"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			var failWrite, failSync atomic.Bool
			open := faultyFiles(&failWrite, &failSync)
			dir := t.TempDir()
			clock := referencetest.NewClockAtT0()
			s := mustOpenState(t, dir, clock, WithStateFiles(open))
			tokens, trxIDs := someChanges(t, s)
			var failed []string
			for i := range 20 {
				failed = append(failed, fmt.Sprintf("st-failed-%d", i))
			}
			before := takeSnapshot(t, s, tokens, append(trxIDs, failed...))
			require.Len(t, before.Missing, len(failed))

			if fault == "fsync fails" {
				failSync.Store(true)
			} else {
				failWrite.Store(true)
			}
			funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
			main := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)
			var wg sync.WaitGroup
			errs := make([]error, len(failed)+1)
			for i, id := range failed {
				wg.Go(func() { _, errs[i] = s.CreatePayment(funded, payIn(1002, "081234567890", 0, id, true, false)) })
			}
			wg.Go(func() {
				_, errs[len(failed)] = s.Provision(main, ProvisionInput{Name: "Gagal", PhoneNumber: "081299990002", Email: "gagal@example.com"})
			})
			wg.Wait()
			for i, err := range errs {
				require.ErrorIs(t, err, ErrInternal, "request %d answers 500", i)
			}
			failWrite.Store(false)
			failSync.Store(false)
			assert.Equal(t, before, takeSnapshot(t, s, tokens, append(trxIDs, failed...)), "the wallets and payments are as before")

			// The store goes on, and a restart sees the same.
			_, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, failed[0], true, false))
			require.NoError(t, err)
			after := takeSnapshot(t, s, tokens, append(trxIDs, failed...))
			require.NoError(t, s.Close())
			r := mustOpenState(t, dir, clock)
			assert.Equal(t, after, takeSnapshot(t, r, tokens, append(trxIDs, failed...)))
			_, err = r.Provision(main, ProvisionInput{Name: "Gagal", PhoneNumber: "081299990002", Email: "gagal@example.com"})
			require.NoError(t, err)
		})
	}
}

// TestStateConcurrentWriters hammers a store with a state directory from
// many goroutines (payments, provisioning, reads) and checks that the
// wallet is exact and that a restart serves the same.
func TestStateConcurrentWriters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clock := referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	main := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)
	balance0, _ := wallet(s, funded.AccountID)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	var trxIDs []string
	var mu sync.Mutex
	for w := range workers {
		wg.Go(func() {
			for n := range each {
				id := fmt.Sprintf("cw-%d-%d", w, n)
				v, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, id, true, false))
				assert.NoError(t, err)
				assert.Equal(t, int64(11550), v.Amount.BalanceUsed)
				_, err = s.Provision(main, ProvisionInput{Name: "C", PhoneNumber: fmt.Sprintf("0813%04d%04d", w, n), Email: fmt.Sprintf("c%d-%d@example.com", w, n)})
				assert.NoError(t, err)
				_, err = s.Profile(funded)
				assert.NoError(t, err)
				mu.Lock()
				trxIDs = append(trxIDs, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	balance, _ := wallet(s, funded.AccountID)
	assert.Equal(t, balance0-workers*each*11550, balance)
	before := takeSnapshot(t, s, []string{referencetest.TokFunded}, trxIDs)
	require.NoError(t, s.Close())
	r := mustOpenState(t, dir, clock)
	assert.Equal(t, before, takeSnapshot(t, r, []string{referencetest.TokFunded}, trxIDs))
	assert.Len(t, r.accounts, len(s.accounts))
}

// TestStateCompactsSupersededAccounts syncs one account more than
// compactAfter times: the next start rewrites the journal as the state it
// holds (smaller), and the start after that serves the same state.
func TestStateCompactsSupersededAccounts(t *testing.T) {
	t.Parallel()
	dir, clock, tokens, trxIDs := closedJournal(t)
	s := mustOpenState(t, dir, clock)
	main := caller(t, s, referencetest.KeyNusantara, referencetest.TokMain)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for n := range compactAfter/16 + 2 {
				_, err := s.Provision(main, ProvisionInput{Name: fmt.Sprintf("Nama %d %d", g, n), PhoneNumber: "081299990001", Email: "baru@example.com"})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	_, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokSplit), payIn(1002, "081234567893", 0, "st-after-syncs", true, true))
	require.NoError(t, err)
	trxIDs = append(trxIDs, "st-after-syncs")
	before := takeSnapshot(t, s, tokens, trxIDs)
	require.NoError(t, s.Close())
	path := filepath.Join(dir, JournalName)
	long := journalEnd(t, path)

	logs := &logRecorder{}
	r := mustOpenState(t, dir, clock, WithLogger(slog.New(logs)))
	assert.Equal(t, before, takeSnapshot(t, r, tokens, trxIDs))
	require.NoError(t, r.Close())
	short := journalEnd(t, path)
	assert.Less(t, short, long/10, "the journal is compacted")
	compacted := logs.find("state journal compacted")
	require.Len(t, compacted, 1)
	assert.Equal(t, slog.LevelInfo, compacted[0].Level)
	assert.Equal(t, long, compacted[0].Attrs["bytes_before"])
	assert.Equal(t, short, compacted[0].Attrs["bytes_after"])
	assert.NoFileExists(t, path+".compact")

	r = mustOpenState(t, dir, clock)
	assert.Equal(t, before, takeSnapshot(t, r, tokens, trxIDs), "the compacted journal replays to the same state")
	_, err = r.CreatePayment(caller(t, r, referencetest.KeyNusantara, referencetest.TokSplit), payIn(1002, "081234567893", 0, "st-after-compaction", true, true))
	require.NoError(t, err)
	require.NoError(t, r.Close())
	grown := journalEnd(t, path)
	require.Greater(t, grown, short)
	r = mustOpenState(t, dir, clock)
	require.NoError(t, r.Close())
	assert.Equal(t, grown, journalEnd(t, path), "a start below the threshold does not compact")
}

// FuzzStateJournal starts a store over a journal of arbitrary bytes after
// a valid header: it starts or refuses, and never panics or serves a
// payment it could not read whole.
func FuzzStateJournal(f *testing.F) {
	dir, clock := f.TempDir(), referencetest.NewClockAtT0()
	s, err := openStateStore(f, dir, clock)
	require.NoError(f, err)
	someChanges(f, s)
	require.NoError(f, s.Close())
	data, err := os.ReadFile(filepath.Join(dir, JournalName))
	require.NoError(f, err)
	offs := frameOffsets(f, filepath.Join(dir, JournalName))
	header := data[:offs[1]]
	f.Add(data[offs[1]:])
	f.Add(data[offs[3]:])
	f.Add([]byte{})
	f.Add(append([]byte(storage.FrameMagic), 0xff, 0xff, 0xff, 0x00))
	f.Fuzz(func(t *testing.T, tail []byte) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, JournalName), append(slices.Clone(header), tail...), 0o600))
		s, err := openStateStore(t, dir, clock)
		if err != nil {
			return
		}
		defer func() { _ = s.Close() }()
		// What started is usable: a new payment is numbered after the others.
		funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
		v, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, "fuzz-after", true, false))
		if errors.Is(err, ErrTrxIDUsed) || errors.Is(err, ErrInsufficientFunds) {
			return
		}
		require.NoError(t, err)
		assert.Equal(t, int64(s.txs.n), v.ID)
	})
}
