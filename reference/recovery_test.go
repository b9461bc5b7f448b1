package reference

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
	"github.com/partnercommerce/conformance/reference/storage"
)

// logRecorder is a slog.Handler that keeps every record.
type logRecorder struct {
	mu      sync.Mutex
	records []loggedRecord
}

// loggedRecord is a record a logRecorder kept.
type loggedRecord struct {
	Level   slog.Level
	Message string
	Attrs   map[string]any
}

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (h *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logRecorder) WithGroup(string) slog.Handler            { return h }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	rec := loggedRecord{Level: r.Level, Message: r.Message, Attrs: map[string]any{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.Attrs[a.Key] = a.Value.Any()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, rec)
	return nil
}

// find returns the records whose message contains msg.
func (h *logRecorder) find(msg string) []loggedRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []loggedRecord
	for _, r := range h.records {
		if strings.Contains(r.Message, msg) {
			out = append(out, r)
		}
	}
	return out
}

// journalEnd is the end of the last frame of the journal at path (the
// rest is preallocated zeros).
func journalEnd(tb testing.TB, path string) int64 {
	tb.Helper()
	offs := frameOffsets(tb, path)
	data, err := os.ReadFile(path)
	require.NoError(tb, err)
	last := offs[len(offs)-1]
	return last + storage.FrameHeader + int64(binary.LittleEndian.Uint32(data[last+4:]))
}

// bigLastFrame makes someChanges and one more payment, whose parts make
// its frame span more than two sectors, and closes the store.
func bigLastFrame(t *testing.T) (dir string, clock *referencetest.Clock, tokens, trxIDs []string) {
	t.Helper()
	dir, clock = t.TempDir(), referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	tokens, trxIDs = someChanges(t, s)
	in := payIn(1002, "081234567890", 0, "st-big", true, false)
	in.Parts = map[string]any{"note": strings.Repeat("catatan ", 200)}
	_, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded), in)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	return dir, clock, tokens, append(trxIDs, "st-big")
}

// TestStateTornLastWriteDropped starts over a journal whose last write a
// crash stopped part way: the frame is dropped (none of its requests was
// answered), the drop is logged with its frame and bytes and with the id of
// the payment it held when the file holds it, and the journal goes on.
func TestStateTornLastWriteDropped(t *testing.T) {
	t.Parallel()
	damages := map[string]struct {
		damage func(data []byte, last int64) []byte
		logged []string // the payments the log names
	}{
		"the file ends inside the last frame":          {func(data []byte, last int64) []byte { return data[:last+storage.FrameHeader+3] }, nil},
		"the file ends inside the last frame's header": {func(data []byte, last int64) []byte { return data[:last+5] }, nil},
		"the file ends inside the last frame, after its payment's id": {
			func(data []byte, last int64) []byte { return data[:last+storage.FrameHeader+200] }, []string{"st-big"}},
		"a storage.Sector of the last frame never written": {func(data []byte, last int64) []byte {
			at := (last + 2*storage.Sector) / storage.Sector * storage.Sector // a whole storage.Sector inside the frame
			clear(data[at : at+storage.Sector])
			return data
		}, []string{"st-big"}},
		"the header's frame cut short": {func(data []byte, _ int64) []byte { return data[:storage.FrameHeader+3] }, nil},
	}
	for name, tc := range damages {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir, clock, tokens, trxIDs := bigLastFrame(t)
			path := filepath.Join(dir, JournalName)
			offs := frameOffsets(t, path)
			last, frame := offs[len(offs)-1], len(offs)
			want := takeSnapshot(t, replayPrefix(t, dir, last, clock), tokens, trxIDs)
			if name == "the header's frame cut short" { // the data set's state, and a journal that works
				last, frame, tokens = 0, 1, tokens[:2]
				want = takeSnapshot(t, replayPrefix(t, dir, 0, clock), tokens, trxIDs)
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, tc.damage(data, last), 0o600))

			logs := &logRecorder{}
			r := mustOpenState(t, dir, clock, WithLogger(slog.New(logs)))
			assert.Equal(t, want, takeSnapshot(t, r, tokens, trxIDs))
			if name != "the header's frame cut short" {
				assert.Equal(t, []string{"st-big"}, want.Missing, "the torn frame held the last payment")
			}
			dropped := logs.find("dropped a torn last frame")
			require.Len(t, dropped, 1)
			assert.Equal(t, slog.LevelWarn, dropped[0].Level)
			assert.Equal(t, int64(frame), dropped[0].Attrs["frame"])
			assert.Equal(t, last, dropped[0].Attrs["offset"])
			assert.Positive(t, dropped[0].Attrs["bytes"])
			assert.Equal(t, int64(len(tc.logged)), dropped[0].Attrs["payments"])
			assert.Equal(t, tc.logged, loggedTrxIDs(logs, "the torn last frame held a payment"))
			journalGoesOn(t, r, dir, clock, tokens, trxIDs)
		})
	}
}

// loggedTrxIDs are the partner_trx_ids of the records whose message
// contains msg.
func loggedTrxIDs(logs *logRecorder, msg string) []string {
	var ids []string
	for _, rec := range logs.find(msg) {
		ids = append(ids, rec.Attrs["partner_trx_id"].(string))
	}
	return ids
}

// TestStateTornFrameOfSeveralPayments starts over a journal whose last
// frame held several payments (a group commit) and was cut inside the
// last one, before its id: the log names the payments the file holds
// whole, at Warn.
func TestStateTornFrameOfSeveralPayments(t *testing.T) {
	t.Parallel()
	dir, clock, tokens, trxIDs := closedJournal(t)
	path := filepath.Join(dir, JournalName)
	offs := frameOffsets(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	end := journalEnd(t, path)
	first := offs[3] // the frames of the payments start after the header and two provisionings
	var body []byte
	var lastRecord int
	for i, off := range offs[3:] {
		next := end
		if 3+i+1 < len(offs) {
			next = offs[3+i+1]
		}
		lastRecord = len(body)
		body = append(body, data[off+storage.FrameHeader:next]...)
	}
	group := testFrame(body)
	torn := append(slices.Clone(data[:first]), group[:storage.FrameHeader+lastRecord+10]...) // inside the last record, before its id
	require.NoError(t, os.WriteFile(path, torn, 0o600))
	want := takeSnapshot(t, replayPrefix(t, dir, first, clock), tokens, trxIDs)
	require.Equal(t, trxIDs, want.Missing)

	logs := &logRecorder{}
	r := mustOpenState(t, dir, clock, WithLogger(slog.New(logs)))
	assert.Equal(t, want, takeSnapshot(t, r, tokens, trxIDs))
	held := logs.find("the torn last frame held a payment")
	assert.Equal(t, trxIDs[:len(trxIDs)-1], loggedTrxIDs(logs, "the torn last frame held a payment"))
	for _, rec := range held {
		assert.Equal(t, slog.LevelWarn, rec.Level)
		assert.Equal(t, first, rec.Attrs["frame_offset"])
	}
	dropped := logs.find("dropped a torn last frame")
	require.Len(t, dropped, 1)
	assert.Equal(t, int64(len(trxIDs)-1), dropped[0].Attrs["payments"])
	assert.Equal(t, int64(10), dropped[0].Attrs["unreadable_bytes"])
}

// journalGoesOn makes a payment on r, closes it and checks that the next
// start serves the same.
func journalGoesOn(t *testing.T, r *Store, dir string, clock *referencetest.Clock, tokens, trxIDs []string) {
	t.Helper()
	_, err := r.CreatePayment(caller(t, r, referencetest.KeyNusantara, referencetest.TokFunded), payIn(1002, "081234567890", 0, "st-after", true, false))
	require.NoError(t, err)
	trxIDs = append(slices.Clone(trxIDs), "st-after")
	want := takeSnapshot(t, r, tokens, trxIDs)
	require.NoError(t, r.Close())
	assert.Equal(t, want, takeSnapshot(t, mustOpenState(t, dir, clock), tokens, trxIDs), "and the journal opens again")
}

// TestStateZerosAfterTheLastFrameAreSpace starts over a journal followed
// by 2 MiB of zeros: it is space (what the journal preallocates), not
// damage, and the start says so.
func TestStateZerosAfterTheLastFrameAreSpace(t *testing.T) {
	t.Parallel()
	dir, clock, tokens, trxIDs := closedJournal(t)
	path := filepath.Join(dir, JournalName)
	want := takeSnapshot(t, replayPrefix(t, dir, -1, clock), tokens, trxIDs)
	end := journalEnd(t, path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(make([]byte, 2<<20))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	size := fileSize(t, path)

	logs := &logRecorder{}
	r := mustOpenState(t, dir, clock, WithLogger(slog.New(logs)))
	assert.Equal(t, want, takeSnapshot(t, r, tokens, trxIDs))
	assert.Empty(t, want.Missing)
	replayed := logs.find("state journal replayed")
	require.Len(t, replayed, 1)
	assert.Equal(t, slog.LevelInfo, replayed[0].Level)
	assert.Equal(t, size-end, replayed[0].Attrs["preallocated"])
	assert.Equal(t, int64(len(trxIDs)), replayed[0].Attrs["payments"])
	assert.Empty(t, logs.find("torn"))
	journalGoesOn(t, r, dir, clock, tokens, trxIDs)
}

func fileSize(tb testing.TB, path string) int64 {
	tb.Helper()
	info, err := os.Stat(path)
	require.NoError(tb, err)
	return info.Size()
}

// plainLastFrame makes someChanges and one more payment with neither
// promotion, shift code nor parts, whose record (and so its frame) ends in
// a zero byte, and closes the store.
func plainLastFrame(t *testing.T) (dir string, clock *referencetest.Clock, tokens, trxIDs []string) {
	t.Helper()
	dir, clock = t.TempDir(), referencetest.NewClockAtT0()
	s := mustOpenState(t, dir, clock)
	tokens, trxIDs = someChanges(t, s)
	_, err := s.CreatePayment(caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded), payIn(1002, "081234567890", 0, "st-plain", true, false))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	path := filepath.Join(dir, JournalName)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Zero(t, data[journalEnd(t, path)-1], "the last frame ends in a zero byte")
	return dir, clock, tokens, append(trxIDs, "st-plain")
}

// TestStateDamageBeforeAFrameEndingInZeros damages the frame before the
// last, which ends in a zero byte: the start is refused with the intact
// frame that follows, found by its header and checksum (not "no intact
// frame follows", as when the last non-zero byte bounded the search).
func TestStateDamageBeforeAFrameEndingInZeros(t *testing.T) {
	t.Parallel()
	dir, clock, _, _ := plainLastFrame(t)
	path := filepath.Join(dir, JournalName)
	offs := frameOffsets(t, path)
	last := offs[len(offs)-1]
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[offs[len(offs)-2]+storage.FrameHeader+6] ^= 0x40
	require.NoError(t, os.WriteFile(path, data, 0o600))
	_, err = openStateStore(t, dir, clock)
	var corrupt *CorruptError
	require.ErrorAs(t, err, &corrupt)
	assert.Equal(t, offs[len(offs)-2], corrupt.Offset)
	assert.Contains(t, corrupt.Follows, fmt.Sprintf("an intact frame follows at offset %d", last))
}

// TestStateDamageRefusesToStart damages a journal where no crash can:
// inside a whole frame (the last one too), or after zeros. The start is
// refused with the offset of the damage and what follows it.
func TestStateDamageRefusesToStart(t *testing.T) {
	t.Parallel()
	dir, clock, _, _ := closedJournal(t)
	path := filepath.Join(dir, JournalName)
	offs := frameOffsets(t, path)
	require.Greater(t, len(offs), 4)
	last, end := offs[len(offs)-1], journalEnd(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	flip := func(at int64) func([]byte) {
		return func(b []byte) { b[at] ^= 0x40 }
	}
	for name, tc := range map[string]struct {
		damage  func([]byte)
		offset  int64
		follows string
	}{
		"a record's byte":            {flip(offs[2] + storage.FrameHeader + 6), offs[2], fmt.Sprintf("an intact frame follows at offset %d", offs[3])},
		"a frame's length":           {flip(offs[2] + 5), offs[2], fmt.Sprintf("an intact frame follows at offset %d", offs[3])},
		"a byte of the last frame":   {flip(last + storage.FrameHeader + 6), last, "it is the last frame and whole"},
		"the last frame's checksum":  {flip(last + 9), last, "it is the last frame and whole"},
		"bytes after 2 MiB of zeros": {func(b []byte) { copy(b[end+2<<20:], "not zeros") }, end, fmt.Sprintf("%d zero bytes, then non-zero bytes from offset %d", 2<<20, end+2<<20)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bad := append(slices.Clone(data), make([]byte, 3<<20)...)
			tc.damage(bad)
			cp := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(cp, JournalName), bad, 0o600))
			_, err := openStateStore(t, cp, clock)
			var corrupt *CorruptError
			require.ErrorAs(t, err, &corrupt)
			assert.Equal(t, filepath.Join(cp, JournalName), corrupt.Path)
			assert.Equal(t, tc.offset, corrupt.Offset)
			assert.Contains(t, err.Error(), fmt.Sprintf("%s is damaged at offset %d", corrupt.Path, tc.offset))
			assert.Contains(t, corrupt.Follows, tc.follows)
			assert.Contains(t, err.Error(), "--repair")
		})
	}
}

// TestStateRepairKeepsACopyAndLogsWhatItDrops starts with WithRepair over
// a journal damaged in its middle: the start goes on with the frames
// before the damage, a copy of the journal is kept as it was, and every
// payment dropped is logged by id.
func TestStateRepairKeepsACopyAndLogsWhatItDrops(t *testing.T) {
	t.Parallel()
	for name, journal := range map[string]func(*testing.T) (string, *referencetest.Clock, []string, []string){
		"the last frame ends in a non-zero byte": closedJournal,
		"the last frame ends in a zero byte":     plainLastFrame,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testRepair(t, journal)
		})
	}
}

func testRepair(t *testing.T, journal func(*testing.T) (string, *referencetest.Clock, []string, []string)) {
	dir, clock, tokens, trxIDs := journal(t)
	path := filepath.Join(dir, JournalName)
	offs := frameOffsets(t, path)
	damaged := offs[3] // the frames of the payments start after the header and two provisionings
	want := takeSnapshot(t, replayPrefix(t, dir, damaged, clock), tokens, trxIDs)
	require.Equal(t, trxIDs, want.Missing, "the damage drops every payment")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data[damaged+storage.FrameHeader+6] ^= 0x40
	require.NoError(t, os.WriteFile(path, data, 0o600))

	logs := &logRecorder{}
	r := mustOpenState(t, dir, clock, WithRepair(), WithLogger(slog.New(logs)))
	assert.Equal(t, want, takeSnapshot(t, r, tokens, trxIDs))

	copies, err := filepath.Glob(path + ".damaged-*")
	require.NoError(t, err)
	require.Len(t, copies, 1)
	kept, err := os.ReadFile(copies[0])
	require.NoError(t, err)
	assert.Equal(t, data, kept, "the copy is the journal as it was")
	assert.Equal(t, copies[0], logs.find("kept a copy")[0].Attrs["copy"])

	var logged []string
	for _, rec := range logs.find("dropped a payment") {
		assert.Equal(t, slog.LevelError, rec.Level)
		logged = append(logged, rec.Attrs["partner_trx_id"].(string))
	}
	assert.Equal(t, trxIDs, logged, "every payment dropped, by id, the damaged frame's too")
	repaired := logs.find("state journal repaired")
	require.Len(t, repaired, 1)
	assert.Equal(t, damaged, repaired[0].Attrs["offset"])
	assert.Equal(t, int64(len(trxIDs)), repaired[0].Attrs["payments"])
	journalGoesOn(t, r, dir, clock, tokens, nil)
}

// TestStateLogsFailedWritesOncePerEpisode fails the journal's fsyncs under
// concurrent payments: the log says it once at Error, not once per
// request, and once more, with the counts, when writing works again.
func TestStateLogsFailedWritesOncePerEpisode(t *testing.T) {
	t.Parallel()
	var failWrite, failSync atomic.Bool
	logs := &logRecorder{}
	s := mustOpenState(t, t.TempDir(), referencetest.NewClockAtT0(), WithStateFiles(faultyFiles(&failWrite, &failSync)), WithLogger(slog.New(logs)))
	funded := caller(t, s, referencetest.KeyNusantara, referencetest.TokFunded)
	require.Len(t, logs.find("state journal replayed"), 1, "the start")

	failSync.Store(true)
	const requests = 10
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			_, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, fmt.Sprintf("ep-%d", i), true, false))
			assert.ErrorIs(t, err, ErrInternal)
		})
	}
	wg.Wait()
	failed := logs.find("a write failed")
	require.Len(t, failed, 1, "once per episode, not per request")
	assert.Equal(t, slog.LevelError, failed[0].Level)
	assert.ErrorIs(t, failed[0].Attrs["error"].(error), syscall.EIO, "the cause")
	assert.Empty(t, logs.find("writing works again"))

	failSync.Store(false)
	_, err := s.CreatePayment(funded, payIn(1002, "081234567890", 0, "ep-after", true, false))
	require.NoError(t, err)
	again := logs.find("writing works again")
	require.Len(t, again, 1)
	assert.Equal(t, slog.LevelWarn, again[0].Level)
	assert.Equal(t, int64(requests), again[0].Attrs["failed_requests"])
	assert.Equal(t, int64(requests), again[0].Attrs["dropped_records"])
	assert.Positive(t, again[0].Attrs["failed_writes"])
	assert.Len(t, logs.find("a write failed"), 1)
}

// testFrame is a frame of body, as the journal writes it.
func testFrame(body []byte) []byte {
	f := append(make([]byte, storage.FrameHeader), body...)
	copy(f, storage.FrameMagic)
	binary.LittleEndian.PutUint32(f[4:], uint32(len(body)))
	binary.LittleEndian.PutUint32(f[8:], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return f
}
