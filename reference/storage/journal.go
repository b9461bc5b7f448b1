package storage

import (
	"errors"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// The journal's file is a sequence of frames, each one write and one
// fdatasync, followed by zeros (the space preallocated for the next ones;
// none when the disk had no room for them):
//
//	"PCJ1"  body length (uint32 LE)  CRC-32C of the body (uint32 LE)  body
//
// and a body is a sequence of records, each its length (uint32 LE, type
// byte and payload), its type byte and its payload (the domain encodes them).
// A frame is checked as a whole: its records were acknowledged together, so
// a frame whose write was torn by a crash is dropped whole.
const (
	FrameMagic  = "PCJ1"
	FrameHeader = 12
	// MaxFrame bounds a frame's body, so the write a crash can tear is at
	// most this long (a single larger record still gets a frame of its own).
	MaxFrame = 1 << 20
	// maxFrameRead is the longest body the reader accepts: longer is damage.
	maxFrameRead = 64 << 20
	RecordHeader = 5
	// The journal grows by writing zeros ahead of its frames, so that a
	// frame's write changes neither the file's length nor its allocation
	// and fdatasync suffices: first by minSegment, then by as much as it
	// holds, at most segment at a time.
	minSegment = 64 << 10
	segment    = 8 << 20
)

// zeros is what the journal's space is preallocated with (read only).
var zeros [64 << 10]byte

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// File is an open file of a state directory; *os.File is one. Tests
// wrap it to make a write or an fsync fail.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Sync() error
	Truncate(size int64) error
	Stat() (fs.FileInfo, error)
	Close() error
}

// ErrNotDurable is the outcome of a request whose records (or the records
// whose effects it read) were not made durable.
var ErrNotDurable = errors.New("reference: the journal could not make the change durable")

// Journal is the write-ahead journal of a state directory. The domain
// appends a record under its lock (Options.Mu, "Store.mu" below) for every
// change it makes, in the order it makes them, then releases Store.mu and
// waits (Wait) until the
// record is on disk before it answers. Group commit: one goroutine (run)
// writes every record appended so far as one frame and fdatasyncs it, while
// the requests wait; records appended meanwhile go in the next frame, which
// it writes as soon as the fdatasync returns. So one round (a write and an
// fdatasync) serves every request that arrived during the previous one, and
// no request has to be woken to start the next write. A waiting request
// sleeps on its frame's channel, closed as soon as the frame is durable:
// the frame's requests wake together and none needs the journal's lock to
// learn its outcome.
//
// The frames are written into zeros preallocated ahead of them (reserve),
// at the end of the last durable frame; nothing in the file changes length
// while serving but a new segment's zeros.
//
// Positions are logical: the count of record bytes appended since the
// journal was opened, never reused, so a waiter compares its record's end
// with the durable position.
//
// Lock order: Store.mu, then journal.mu.
//
// What a waiter can observe. A request is answered with success only when
// wait returns nil for the end of the records its answer depends on, and
// wait returns nil only when that end is at most durable and lies in no
// span a failed flush dropped (lost). That holds under every interleaving
// of flush, failure and new arrivals because:
//
//  1. durable grows only past records that are on disk: in flush, once the
//     frame's fdatasync returned nil; in fail, past the records it has just
//     recorded as lost, in the same critical section (under Store.mu and
//     mu). lostTo is stored before durable, so a reader of the new durable
//     reads the new lostTo too, and wait's fast path (at most durable, after
//     lostTo) never passes over a lost span.
//  2. Under mu, a record above durable is either in the frame in flight
//     (end <= pendingAt; inflight is that flush's channel) or pending (end >
//     pendingAt; next is closed by the flush that takes it, or by fail).
//     inflight is cleared only in the critical section that publishes the
//     frame's outcome (durable advanced, or its span lost), so Poll gives
//     a waiter with no outcome yet a channel that closes only once the
//     outcome is known, never none.
//  3. A failed flush takes Store.mu, then mu, before it changes anything, and
//     undoes everything under both: the frame's records and every record
//     appended since become one lost span and the state is rebuilt from the
//     disk, while no request can append (that needs Store.mu) or read the
//     journal's state (that needs mu). Before issue 36 fail cleared inflight,
//     then released mu to take Store.mu: a waiter arriving in that gap found
//     its record neither lost nor pending and was answered 200 for a payment
//     the rollback then erased.
type Journal struct {
	path   string
	file   File
	logger *slog.Logger
	// rollback rebuilds the domain's state from the file's first size
	// bytes; it runs with Store.mu and journal.mu held.
	rollback func(size int64) error
	storeMu  *sync.Mutex

	// durable is the end of the records on disk, lostTo the end of the last
	// span of records a failed flush dropped: a record ending in (lostTo,
	// durable] is on disk, which is wait's fast path without mu. Both only
	// grow, and only run changes them (durable alone after a success; both
	// under Store.mu and mu in fail); a broken or closed journal sets lostTo
	// to the maximum, so that every wait takes mu and finds broken.
	durable, lostTo atomic.Uint64
	// troubled is set while an episode of failed writes is under way
	// (trouble.since is set), so that a successful flush takes mu to end it
	// only then. Written under mu, read by run without it.
	troubled atomic.Bool
	// frames counts the frames made durable (the group-commit rounds), for
	// the benchmarks.
	frames atomic.Uint64

	observe func(Commit) // Options.Observe (commits.go); set before the first append
	unlock  func()       // releases the state directory's lock

	mu sync.Mutex
	// kick wakes run when there is something to flush or the journal
	// closes.
	kick    sync.Cond
	closing bool
	stopped chan struct{}
	// next is closed when the flush that takes the pending records ends,
	// inflight when the flush under way does (nil when none is): the
	// requests waiting for each wake once, without taking mu.
	next, inflight chan struct{}
	// pending holds the records appended since the last flush began,
	// behind FrameHeader bytes reserved for their frame's header;
	// pendingAt is the position of its first record.
	pending   []byte
	pendingAt uint64
	spare     []byte
	// appended is the end of the last record appended. Appenders hold
	// Store.mu and mu, so either lock suffices to read it.
	appended uint64
	// size is the end of the last durable frame, where the next is
	// written; allocated is the file's length, zeros from size on. Only
	// run (flush, reserve, fail) changes them once the journal runs.
	size, allocated int64
	// header is the journal's first record: when the start could not write
	// its frame (size 0), the first flush writes it before its own, then
	// syncs the directory with syncDir. Set before the first append.
	header  []byte
	syncDir func() error
	// trouble is the episode of failed writes under way, if any.
	trouble episode
	// lost are the spans of records failed flushes dropped, in order.
	lost []span
	// broken, once set, fails every request: the state in memory could not
	// be brought back to what is on disk.
	broken error
}

// span is the records whose end is in (from, to].
type span struct{ from, to uint64 }

// episode counts the failures from the first failed write until a write
// succeeds again, so that the log says it once at each end, not once per
// request.
type episode struct {
	since                  time.Time // zero: no failure under way
	writes, requests, lost int       // failed flushes, requests answered 500, records dropped
}

func newJournal(path string, f File, size, allocated int64, storeMu *sync.Mutex, rollback func(int64) error, logger *slog.Logger) *Journal {
	j := &Journal{path: path, file: f, logger: logger, size: size, allocated: allocated, storeMu: storeMu, rollback: rollback,
		pending: make([]byte, FrameHeader, 64<<10), stopped: make(chan struct{}), next: make(chan struct{})}
	j.kick.L = &j.mu
	go j.run()
	return j
}

// run flushes the pending records whenever there are some, until the
// journal closes.
func (j *Journal) run() {
	defer close(j.stopped)
	j.mu.Lock()
	defer j.mu.Unlock()
	for {
		for len(j.pending) == FrameHeader && !j.closing {
			j.kick.Wait()
		}
		if j.closing {
			return
		}
		j.flush()
	}
}

// Append adds a record (RecordHeader bytes then its payload, sealed by
// SealRecord) and returns its end. The caller holds Store.mu.
func (j *Journal) Append(rec []byte) uint64 {
	j.mu.Lock()
	if j.broken != nil { // every wait fails: keep nothing
		j.mu.Unlock()
		return j.appended
	}
	j.pending = append(j.pending, rec...)
	j.appended += uint64(len(rec))
	end := j.appended
	j.mu.Unlock()
	return end
}

// End returns the end of the last record appended, which the state the
// caller read or changed includes. The caller holds Store.mu.
func (j *Journal) End() uint64 { return j.appended }

// Frames counts the frames made durable (the group-commit rounds).
func (j *Journal) Frames() uint64 { return j.frames.Load() }

// Wait returns when every record up to end is on disk, or ErrNotDurable
// when a failed flush dropped one of them (or the journal's error when it
// is broken or closed). The caller does not hold Store.mu.
func (j *Journal) Wait(end uint64) error {
	for {
		if end <= j.durable.Load() && end > j.lostTo.Load() {
			return nil
		}
		done, err := j.Poll(end)
		if done == nil {
			return err
		}
		<-done
	}
}

// Poll returns the outcome of the record ending at end when it is known
// (a nil channel), or else the channel closed when the flush that writes
// it ends (never nil then: see the journal's invariant).
func (j *Journal) Poll(end uint64) (<-chan struct{}, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.broken != nil {
		return nil, j.broken
	}
	if j.isLost(end) {
		if !j.trouble.since.IsZero() {
			j.trouble.requests++
		}
		return nil, ErrNotDurable
	}
	if end <= j.durable.Load() {
		return nil, nil
	}
	if end <= j.pendingAt { // in the frame being written
		return j.inflight, nil
	}
	j.kick.Signal()
	return j.next, nil
}

// isLost says whether the record ending at end was dropped by a failed
// flush. The caller holds mu.
func (j *Journal) isLost(end uint64) bool {
	if end > j.lostTo.Load() {
		return false
	}
	i := sort.Search(len(j.lost), func(i int) bool { return j.lost[i].to >= end })
	return i < len(j.lost) && end > j.lost[i].from
}

// flush writes the pending records as one frame at the end of the durable
// ones and fdatasyncs it. The caller (run) holds j.mu; j.mu is released
// during the write, and a failure is undone under Store.mu and j.mu (fail).
func (j *Journal) flush() {
	body := j.pending[FrameHeader:]
	k := frameCut(body)
	frame := j.pending[:FrameHeader+k]
	if k == len(body) {
		j.pending = j.spare[:0]
		if cap(j.pending) < FrameHeader {
			j.pending = make([]byte, 0, 64<<10)
		}
		j.pending = j.pending[:FrameHeader]
	} else {
		rest := body[k:]
		j.pending = append(make([]byte, FrameHeader, FrameHeader+len(rest)), rest...)
	}
	j.spare = nil
	end := j.pendingAt + uint64(k)
	j.pendingAt = end
	done := j.next
	j.inflight, j.next = done, make(chan struct{})
	j.mu.Unlock()

	start := time.Now()
	var err error
	if j.size == 0 { // the start had no room for the header's frame: it goes first
		j.size, err = writeHeader(j.file, j.header, j.syncDir)
		j.allocated = max(j.allocated, j.size)
	}
	if err == nil {
		err = j.write(frame)
	}
	if err != nil {
		// Undo under Store.mu and mu, taken in the lock order before
		// anything changes (the journal's invariant, 3): the frame stays in
		// flight to every waiter until its span is recorded lost.
		j.storeMu.Lock()
		j.mu.Lock()
		j.fail(err, countRecords(frame[FrameHeader:]))
		j.inflight = nil
		j.storeMu.Unlock()
		close(done)
		return
	}
	// Wake the frame's requests first, then the books.
	if j.troubled.Load() { // an episode of failures ends: log it before any answer
		j.mu.Lock()
		j.writesAgain()
		j.mu.Unlock()
	}
	j.durable.Store(end)
	j.frames.Add(1)
	j.committed(frame, start)
	close(done)
	// The requests just woken wait in this goroutine's run queue: let them
	// answer before the next fdatasync blocks this thread with them behind
	// it (until the scheduler hands them on, a context switch later).
	// Requests that arrive meanwhile join the next frame instead of waiting
	// a round more.
	runtime.Gosched()

	j.mu.Lock()
	j.inflight = nil
	j.size += int64(len(frame))
	j.allocated = max(j.allocated, j.size)
	if cap(frame) <= 4*MaxFrame {
		j.spare = frame[:0]
	}
}

// write writes frame after the durable frames and makes it durable: into
// the zeros reserved for it, with fdatasync; or growing the file, with
// fsync.
func (j *Journal) write(frame []byte) error {
	inside := j.reserve(int64(len(frame)))
	if err := writeFrame(j.file, frame, j.size); err != nil {
		return err
	}
	if inside {
		return datasync(j.file)
	}
	return j.file.Sync()
}

// reserve makes room for a frame of n bytes after the durable frames: the
// zeros preallocated ahead of them, or more (preallocate), which keep what
// fits when the disk has less room than it asks for. It returns false when
// even the frame does not fit in them: then the frame is written past the
// file's end, growing it by the frame alone, and must be fsynced (its
// length changes); whether the disk holds it is the frame's write's to
// say.
func (j *Journal) reserve(n int64) bool {
	var err error
	j.allocated, err = preallocate(j.file, j.size, j.allocated, n)
	return err == nil
}

// preallocate writes zeros after the file's length until n more bytes fit
// after size, and fsyncs them (the file's length changed), so that the
// frames written into them need only fdatasync. It asks for a segment at a
// time (as much as the file holds, between minSegment and segment) and,
// when the disk has less room than that, keeps the zeros that fit: it
// succeeds when they hold n bytes. It returns the file's length, the zeros
// that fit included (they are space, whatever the error).
func preallocate(f File, size, length, n int64) (int64, error) {
	need := size + n - length
	if need <= 0 {
		return length, nil
	}
	grow := max(need, min(max(length, minSegment), segment))
	wrote, err := writeZeros(f, length, grow)
	length += wrote
	if err != nil && wrote < need {
		return length, err
	}
	return length, f.Sync()
}

// writeZeros writes n zero bytes at off and returns how many it wrote.
func writeZeros(f File, off, n int64) (int64, error) {
	var wrote int64
	for wrote < n {
		k, err := f.WriteAt(zeros[:min(n-wrote, int64(len(zeros)))], off+wrote)
		wrote += int64(k)
		if err != nil {
			return wrote, err
		}
	}
	return wrote, nil
}

// countRecords counts the whole records of a frame's body.
func countRecords(body []byte) int {
	n := 0
	for _, err := range Records(body) {
		if err != nil {
			break
		}
		n++
	}
	return n
}

// frameCut returns how many bytes of body, whole records, make the next
// frame: all of them up to MaxFrame, and at least one record.
func frameCut(body []byte) int {
	if len(body) <= MaxFrame {
		return len(body)
	}
	k := 0
	for rec, _ := range Records(body) { // a cut record still says its size
		if k > 0 && k+rec.Size > MaxFrame {
			break
		}
		k += rec.Size
	}
	return k
}

// fail handles a failed write or fsync, whose frame held records records:
// every record not yet durable is dropped (its request answers 500), the
// file is cut back to the end of its durable frames (the next write
// preallocates again) and the domain's state is rebuilt from it, so the
// memory keeps nothing the disk does not. If that fails too the journal is
// broken and every later request fails. The caller (flush) holds Store.mu
// and j.mu.
func (j *Journal) fail(cause error, records int) {
	records += countRecords(j.pending[FrameHeader:])
	j.lost = append(j.lost, span{from: j.durable.Load(), to: j.appended})
	j.lostTo.Store(j.appended)
	// The state rebuilt below is the disk's: it is durable, at a position
	// past the lost span, so what is read from it is not taken for lost.
	j.appended++
	j.durable.Store(j.appended)
	j.pending = j.pending[:FrameHeader]
	j.pendingAt = j.appended
	if err := j.file.Truncate(j.size); err != nil {
		j.breakWith(errors.Join(ErrNotDurable, cause, err))
	} else if err := j.rollback(j.size); err != nil {
		j.breakWith(errors.Join(ErrNotDurable, cause, err))
	}
	j.allocated = min(j.allocated, j.size)
	j.writeFailed(cause, records)
	close(j.next) // the pending records are lost too
	j.next = make(chan struct{})
}

// breakWith makes every later wait fail with err. The caller holds mu.
func (j *Journal) breakWith(err error) {
	j.broken = err
	j.lostTo.Store(math.MaxUint64)
}

// writeFailed logs the first failure of an episode at Error, and a broken
// journal. The caller holds j.mu.
func (j *Journal) writeFailed(cause error, records int) {
	t := &j.trouble
	if t.since.IsZero() {
		t.since = time.Now()
		j.troubled.Store(true)
		j.logger.Error("state journal: a write failed; every request that changes state, or reads a change not yet on disk, answers 500 until a write succeeds",
			"path", j.path, "error", cause, "dropped_records", records)
	}
	t.writes++
	t.lost += records
	if j.broken != nil {
		j.logger.Error("state journal: the state could not be brought back to what is on disk; every request answers 500 until the server restarts",
			"path", j.path, "error", j.broken)
	}
}

// startsWithout tells what the start could not write (cause): the
// header, or the zeros the first frames need. With some zeros ahead (the
// journal's own, or those that fit) the frames go on into them, and the
// log warns that the disk is nearly full. Without any, an episode of
// failed writes begins: the domain starts and serves what the journal
// holds, and a change answers 500 until its write succeeds, which ends the
// episode (writesAgain).
func (j *Journal) startsWithout(cause error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if room := j.allocated - j.size; j.size > 0 && room > 0 {
		j.logger.Warn("state journal: the disk is nearly full: the journal's next frames have only the space preallocated before it filled",
			"path", j.path, "error", cause, "preallocated_bytes", room)
		return
	}
	j.trouble = episode{since: time.Now(), writes: 1}
	j.troubled.Store(true)
	j.logger.Error("state journal: the disk has no room for the journal's next frames at the start; the server serves what the journal holds, and every request that changes state answers 500 until a write succeeds",
		"path", j.path, "error", cause, "header_written", j.size > 0)
}

// writesAgain ends an episode of failed writes, logging what it cost. The
// caller holds j.mu.
func (j *Journal) writesAgain() {
	t := &j.trouble
	if t.since.IsZero() {
		return
	}
	j.logger.Warn("state journal: writing works again",
		"path", j.path, "failed_writes", t.writes, "failed_requests", t.requests, "dropped_records", t.lost,
		"for", time.Since(t.since).Round(time.Millisecond))
	*t = episode{}
	j.troubled.Store(false)
}

// Close stops run once its flush (if any) ends, fails every later wait,
// closes the file and releases the state directory.
func (j *Journal) Close() error {
	j.mu.Lock()
	j.closing = true
	j.kick.Signal()
	j.mu.Unlock()
	<-j.stopped
	j.mu.Lock()
	if j.broken == nil {
		j.breakWith(errors.New("reference: the store is closed"))
	}
	close(j.next)
	j.next = make(chan struct{}) // a later wait sees broken
	j.mu.Unlock()
	err := j.file.Close()
	j.unlock()
	return err
}
