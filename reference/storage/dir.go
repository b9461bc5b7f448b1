package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// JournalName is the journal's file name in a state directory.
const JournalName = "journal"

// OpenFunc opens a file of a state directory (os.OpenFile's signature).
type OpenFunc func(name string, flag int, perm fs.FileMode) (File, error)

// OpenFile is the OpenFunc of the operating system's files.
func OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return os.OpenFile(name, flag, perm) //nolint:gosec // the path is the operator's --state directory
}

// Domain is what the journal's records mean: the state they change. The
// storage calls it at the start (the caller owns the state then) and when
// a failed write rolls the state back (under Options.Mu).
type Domain interface {
	// Apply applies a frame's body: the journal's header (its first
	// frame) when header is set. An error wrapping ErrMismatch refuses the
	// journal (it was written for another state); any other is damage.
	Apply(body []byte, header bool) error
	// Reset brings the state back to before the journal's first record,
	// which are then applied again.
	Reset()
	// Dropped logs a record the start drops (at says where and why) and
	// returns the index of its count in Options.Counts, Uncounted, or
	// Unreadable.
	Dropped(at Drop, rec Record) int
	// Replayed returns the log's attributes of what the start applied.
	Replayed() []any
	// Compaction returns the log's attributes of why the journal just
	// replayed is due for compaction, or nil when it is not.
	Compaction() []any
	// State calls add with the records of the state as it is, in order:
	// the journal a compaction writes after the header.
	State(add func(rec []byte))
}

// What Domain.Dropped returns of a record that is no count's.
const (
	Unreadable = -1 // it does not read: its bytes are counted unreadable
	Uncounted  = -2 // it reads and is counted nowhere (a header)
)

// Drop says where a dropped record was and why it is dropped.
type Drop struct {
	Path        string
	FrameOffset int64
	// Torn: it was in the torn last write, never acknowledged (log it at
	// Warn); else a repair drops it with the damage (at Error).
	Torn bool
	// FrameIntact says, for a repair's, whether its frame's checksum holds.
	FrameIntact bool
}

// ErrMismatch is a journal written for another state (Domain.Apply wraps
// it, saying which).
var ErrMismatch = errors.New("the state directory was written")

// Options say where a journal is and how it is kept.
type Options struct {
	Dir    string
	Open   OpenFunc     // default OpenFile
	Repair bool         // a start over damage repairs it (see Open)
	Logger *slog.Logger // default: nowhere
	// Header is the journal's first record: a new journal's first frame.
	Header []byte
	// Observe, if set, is called after each commit (see Commit).
	Observe func(Commit)
	// Mu is the domain's lock: the caller of Journal.Append holds it, and
	// a failed write takes it to roll the state back.
	Mu *sync.Mutex
	// Counts names, for the log, the counts Domain.Dropped returns the
	// index of.
	Counts []string
}

// Open opens (or creates) the state directory o.Dir (0700, its files
// 0600: they may hold secrets) and locks it, replays its journal into d,
// which holds the state before any record, and starts the journal. A
// journal damaged other than by a torn last write is a *CorruptError,
// unless o.Repair: then the start keeps a copy of the journal as it was
// beside it (journal.damaged-TIME), has d log every record it drops, and
// erases the damaged frame and everything after it.
func Open(o Options, d Domain) (*Journal, error) {
	if o.Open == nil {
		o.Open = OpenFile
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	dir := o.Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, stateDirError(dir, err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	st := &start{Options: o, d: d}
	path := filepath.Join(dir, JournalName)
	f, size, length, err := st.openJournal(path)
	if err != nil {
		unlock()
		return nil, err
	}
	// A new journal's header, then the first frames' space, so that they
	// need only fdatasync. A disk without room for them does not stop the
	// start: the domain serves what the journal holds, a change answers
	// 500 until its write succeeds, and the journal's first frame writes
	// the header first if it is not there.
	sync := func() error { return syncDir(dir, o.Open) }
	var werr error
	if size == 0 {
		if size, werr = writeHeader(f, o.Header, sync); werr != nil {
			_ = f.Truncate(0) // a header cut short is not a frame
			length = 0
		}
		length = max(length, size)
	}
	if werr == nil {
		length, werr = preallocate(f, size, length, minSegment)
	}
	rollback := func(size int64) error {
		d.Reset()
		_, err := replay(d, path, f, size)
		return err
	}
	j := newJournal(path, f, size, length, o.Mu, rollback, o.Logger)
	j.observe, j.unlock = o.Observe, unlock
	j.header, j.syncDir = o.Header, sync
	if werr != nil {
		j.startsWithout(werr)
	}
	return j, nil
}

// start is the start of a journal: its options and its domain.
type start struct {
	Options
	d Domain
}

// openJournal opens the journal at path, replays it and compacts it if
// the domain says it is due. It returns the journal, the end of its
// frames and its length.
func (st *start) openJournal(path string) (f File, size, length int64, err error) {
	f, err = st.Open(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, 0, stateDirError(st.Dir, err)
	}
	size, length, err = st.recoverJournal(path, f)
	if err != nil {
		_ = f.Close()
		return nil, 0, 0, err
	}
	why := st.d.Compaction()
	if why == nil {
		return f, size, length, nil
	}
	begun := time.Now()
	c, clen, err := st.compact(path)
	if errors.Is(err, errJournalKept) {
		// The journal as it is serves the same state: a disk without room
		// for its copy does not stop the start.
		st.Logger.Error("state journal: compacting failed; the journal is kept as it was",
			append([]any{"path", path, "error", err}, why...)...)
		return f, size, length, nil
	}
	if err != nil {
		_ = f.Close()
		return nil, 0, 0, err
	}
	_ = f.Close() // renamed over: c is the journal now
	st.Logger.Info("state journal compacted", append(append([]any{"path", path, "bytes_before", size, "bytes_after", clen}, why...),
		"took", time.Since(begun).Round(time.Microsecond))...)
	return c, clen, clen, nil
}

// compact rewrites the journal as the state the domain holds: the header,
// then the records of Domain.State. The new journal is written beside the
// old one, fsynced and renamed over it, so a crash leaves one or the other
// whole. It returns the new journal, open for appending, and its size.
// When the copy cannot be written (a disk without room for it) it is
// removed, and the error wraps errJournalKept: the old journal is as it
// was.
func (st *start) compact(path string) (File, int64, error) {
	tmp := path + ".compact"
	f, err := st.Open(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("state journal %s: compacting: %w (%w)", path, stateDirError(st.Dir, err), errJournalKept)
	}
	size, err := st.writeCompacted(f)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return nil, 0, fmt.Errorf("state journal %s: compacting: %w (%w)", path, err, errJournalKept)
	}
	if err := syncDir(st.Dir, st.Open); err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("state journal %s: compacting: %w", path, err)
	}
	return f, size, nil
}

// errJournalKept marks a compaction that failed before it replaced the
// journal.
var errJournalKept = errors.New("the journal is kept as it was")

// writeCompacted writes the journal of the domain's state to f in frames
// of at most MaxFrame bytes and returns its length.
func (st *start) writeCompacted(f File) (int64, error) {
	size, err := writeHeader(f, st.Header, func() error { return nil }) // compact syncs the directory after the rename
	if err != nil {
		return 0, err
	}
	frame := make([]byte, FrameHeader, FrameHeader+MaxFrame)
	var werr error
	st.d.State(func(rec []byte) {
		if len(frame)+len(rec) > FrameHeader+MaxFrame && len(frame) > FrameHeader {
			werr = errors.Join(werr, writeFrame(f, frame, size))
			size += int64(len(frame))
			frame = frame[:FrameHeader]
		}
		frame = append(frame, rec...)
	})
	if len(frame) > FrameHeader {
		werr = errors.Join(werr, writeFrame(f, frame, size))
		size += int64(len(frame))
	}
	return size, werr
}

// stateDirError words a failure to use the state directory, naming it.
func stateDirError(dir string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("state directory %s is not writable: %w", dir, err)
	}
	return fmt.Errorf("state directory %s: %w", dir, err)
}

// writeHeader writes the header's frame at the start of an empty journal
// and fsyncs it, then its directory with syncDir (the file may be new). It
// returns the frame's end.
func writeHeader(f File, header []byte, syncDir func() error) (int64, error) {
	frame := append(make([]byte, FrameHeader, FrameHeader+len(header)), header...)
	if err := writeFrame(f, frame, 0); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := syncDir(); err != nil {
		return 0, err
	}
	return int64(len(frame)), nil
}

// syncDir fsyncs a directory, so a file created in it survives a crash.
func syncDir(dir string, open OpenFunc) error {
	d, err := open(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// chmodPrivate narrows a file's permissions to 0600.
func chmodPrivate(path string) error { return os.Chmod(path, 0o600) }
