package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// Sector is the unit a disk writes whole: a write torn by a crash leaves
// some of its sectors written and the others as they were (zeros, in the
// journal's preallocated space).
const Sector = 512

// CorruptError is a journal whose frames cannot all be read, and whose
// damage is not a torn last write: the start is refused rather than serve
// the state before the damage (unless Options.Repair).
type CorruptError struct {
	Path   string
	Offset int64
	Reason string // what is wrong at Offset
	// Follows says what lies after the damage ("" when the damaged frame
	// is whole and its records are what is wrong).
	Follows string
}

func (e *CorruptError) Error() string {
	follows := ""
	if e.Follows != "" {
		follows = "; " + e.Follows
	}
	return fmt.Sprintf("state journal %s is damaged at offset %d (%s)%s. The reference refuses to start rather than serve part of its state: restore the file from a copy, start with another --state directory, or start with --repair, which keeps a copy of the journal, drops the damaged frame and everything after it, and logs every payment it drops",
		e.Path, e.Offset, e.Reason, follows)
}

// scan is what replay read of a journal.
type scan struct {
	end    int64 // the end of the last intact frame, where the next is written
	frames int
	zeros  int64 // zero bytes after end (the preallocated space)
	torn   *tail // a torn last write after end, or nil
}

// tail is what follows the last intact frame, at off, when it is not only
// zeros: a torn last write, or damage.
type tail struct {
	off, end int64 // end: after the last non-zero byte
	frame    int   // the frame's number (the header's frame is 1)
	// torn says how the last write was cut ("" : it was not, this is damage).
	torn string
}

// replay applies the journal's frames in [0, size) to the domain and
// returns what it found: where the frames end, and the zeros or the torn
// last write after them. Damage is a *CorruptError; the header must match
// the domain's (else the domain's error wrapping ErrMismatch).
func replay(d Domain, path string, f File, size int64) (scan, error) {
	r := io.NewSectionReader(f, 0, size)
	var hdr [FrameHeader]byte
	var body []byte
	var sc scan
	for sc.end < size {
		off := sc.end
		n, reason, err := readFrame(r, off, size, &hdr, &body)
		if err != nil {
			return sc, fmt.Errorf("state journal %s: %w", path, err)
		}
		if reason != "" {
			return replayTail(path, r, sc, size, reason)
		}
		if err := d.Apply(body, off == 0); errors.Is(err, ErrMismatch) {
			return sc, fmt.Errorf("state journal %s: %w", path, err)
		} else if err != nil {
			return sc, &CorruptError{Path: path, Offset: off, Reason: err.Error()}
		}
		sc.end, sc.frames = off+FrameHeader+n, sc.frames+1
	}
	return sc, nil
}

// replayTail judges what follows the last intact frame (sc.end), where a
// frame does not read whole for reason: zeros (the preallocated space), a
// torn last write, or damage.
func replayTail(path string, r io.ReaderAt, sc scan, size int64, reason string) (scan, error) {
	off := sc.end
	end, err := lastNonZero(r, off, size)
	if err != nil {
		return sc, fmt.Errorf("state journal %s: %w", path, err)
	}
	if end == off {
		sc.zeros = size - off
		return sc, nil
	}
	t, follows, err := judgeTail(r, off, end, size, reason)
	if err != nil {
		return sc, fmt.Errorf("state journal %s: %w", path, err)
	}
	if t.torn == "" {
		return sc, &CorruptError{Path: path, Offset: off, Reason: reason, Follows: follows}
	}
	t.frame = sc.frames + 1
	sc.torn, sc.zeros = &t, size-end
	return sc, nil
}

// judgeTail tells a torn last write from damage at off, where the
// non-zero bytes end at end and the file at size. A write is torn when a
// crash stopped it part way: the file ends inside its frame (a journal
// that grew with each write), or some of the frame's sectors were never
// written and read as the zeros preallocated there; and nothing but zeros
// follows it. A frame whose bytes are all there and whose checksum fails
// is damage, as is anything followed by an intact frame or by more than
// one write could hold. For damage, follows says what comes after it.
func judgeTail(r io.ReaderAt, off, end, size int64, reason string) (tail, string, error) {
	t := tail{off: off, end: end}
	buf := make([]byte, min(end-off, FrameHeader+maxFrameRead))
	if _, err := r.ReadAt(buf, off); err != nil {
		return t, "", err
	}
	if next, err := intactFrameAfter(r, buf, off, size); err != nil {
		return t, "", err
	} else if next > 0 {
		return t, fmt.Sprintf("an intact frame follows at offset %d, so the journal holds acknowledged changes after the damage", next), nil
	}
	hdr := make([]byte, FrameHeader) // what the header holds, zeros after end
	copy(hdr, buf)
	var claimed int64 // the frame's length with its header, when the header reads
	if n, reason := frameLength(hdr); reason == "" {
		claimed = FrameHeader + n
	}
	reach := int64(FrameHeader + MaxFrame) // the most one write holds
	switch z := unwrittenHeader(buf, off); {
	case size-off < FrameHeader:
		t.torn = "the file ends inside its header"
	case z >= 0 && end-off <= reach:
		t.torn = fmt.Sprintf("its header's sector at offset %d was never written", z)
	case claimed > 0 && off+claimed > size:
		t.torn = "the file ends inside it"
	case claimed > 0 && end <= off+claimed:
		frame := append(buf, make([]byte, off+claimed-end)...) // zeros after end
		if z := unwrittenSector(frame, off); z >= 0 {
			t.torn = fmt.Sprintf("the sector at offset %d was never written", z)
		}
		reach = claimed
	}
	if t.torn != "" {
		return t, "", nil
	}
	return t, describeDamage(buf, off, end, size, claimed, reach), nil
}

// minUnwritten is the fewest zero bytes at a frame's end that count as a
// sector never written: a frame may end in a few zero bytes of its own (a
// record's last fields are often zero), so a shorter run is read as data,
// and a frame it made fail is damage, not a torn write.
const minUnwritten = 8

// unwrittenSector returns the file offset of the first part of frame
// (which starts at file offset off), cut at sector boundaries, that is all
// zeros and so was never written, or -1.
func unwrittenSector(frame []byte, off int64) int64 {
	for len(frame) > 0 {
		k := min(int64(len(frame)), Sector-off%Sector)
		short := k == int64(len(frame)) && k < minUnwritten
		if !short && isZero(frame[:k]) {
			return off
		}
		frame, off = frame[k:], off+k
	}
	return -1
}

// unwrittenHeader returns the file offset of a sector of the header at
// the start of b (file offset off) that was never written, or -1: its
// part of the header is all zeros and holds magic or checksum bytes (the
// length's high bytes are zero in a frame of its own), and so does the
// rest of that sector in b.
func unwrittenHeader(b []byte, off int64) int64 {
	hdr := make([]byte, FrameHeader) // zeros after b's end
	copy(hdr, b)
	for a := int64(0); a < FrameHeader; {
		sectorEnd := a + Sector - (off+a)%Sector // a's sector's end, from off
		e := min(sectorEnd, FrameHeader)
		lo := min(FrameHeader, int64(len(b)))
		rest := b[lo:max(lo, min(sectorEnd, int64(len(b))))] // the sector's bytes after the header
		if isZero(hdr[a:e]) && (a < 4 || e > 8) && isZero(rest) {
			return off + a
		}
		a = e
	}
	return -1
}

func isZero(b []byte) bool {
	for len(b) > len(zeros) {
		if !bytes.Equal(b[:len(zeros)], zeros[:]) {
			return false
		}
		b = b[len(zeros):]
	}
	return bytes.Equal(b, zeros[:len(b)])
}

// describeDamage says what lies at and after damage at off that is
// neither a torn write nor followed by an intact frame.
func describeDamage(buf []byte, off, end, size, claimed, reach int64) string {
	first := off + int64(len(buf)-len(bytes.TrimLeft(buf, "\x00")))
	after := "then only zeros"
	if end == size {
		after = "then the end of the file"
	}
	switch {
	case first > off:
		return fmt.Sprintf("%d zero bytes, then non-zero bytes from offset %d to %d; no intact frame follows", first-off, first, end)
	case claimed > 0 && end <= off+claimed:
		return fmt.Sprintf("it is the last frame and whole (its %d bytes are all there, %s): its write finished, so its changes may have been acknowledged", claimed, after)
	case end-off > reach:
		return fmt.Sprintf("non-zero bytes run on to offset %d, more than one write holds; no intact frame follows", end)
	}
	return fmt.Sprintf("non-zero bytes up to offset %d, %s; no intact frame follows", end, after)
}

// intactFrameAfter returns the file offset of the first frame that
// starts in b (the file's bytes from off) after its start and reads whole
// with its checksum, or 0. A frame is found by its header, whose magic is
// not zeros, and read from r up to size: its last bytes may be zeros past
// b's end (a record often ends in a zero byte).
func intactFrameAfter(r io.ReaderAt, b []byte, off, size int64) (int64, error) {
	var hdr [FrameHeader]byte
	var body []byte
	for p := 1; p < len(b); p++ {
		i := bytes.Index(b[p:], []byte(FrameMagic))
		if i < 0 {
			return 0, nil
		}
		p += i
		_, reason, err := readFrame(r, off+int64(p), size, &hdr, &body)
		if err != nil {
			return 0, err
		}
		if reason == "" {
			return off + int64(p), nil
		}
	}
	return 0, nil
}

// lastNonZero returns the offset after the last non-zero byte of [off,
// size), or off when there is none. It reads from the end, where the
// preallocated zeros are.
func lastNonZero(r io.ReaderAt, off, size int64) (int64, error) {
	buf := make([]byte, len(zeros))
	for hi := size; hi > off; {
		lo := max(off, hi-int64(len(buf)))
		b := buf[:hi-lo]
		if _, err := r.ReadAt(b, lo); err != nil {
			return 0, err
		}
		if !isZero(b) {
			i := len(b) - 1
			for b[i] == 0 {
				i--
			}
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return off, nil
}

// recoverJournal replays the journal f into the domain and erases a torn
// last write (or, with WithRepair, damage and everything after it). It
// returns the end of its frames (0 for a new journal, or one whose
// header's write was torn) and the file's length.
func (st *start) recoverJournal(path string, f File) (size, length int64, err error) {
	begun := time.Now()
	if length, err = journalLength(path, f); err != nil {
		return 0, 0, err
	}
	var sc scan
	if length > 0 {
		sc, err = replay(st.d, path, f, length)
		var corrupt *CorruptError
		if errors.As(err, &corrupt) && st.Repair {
			if err = st.repairJournal(path, f, length, corrupt); err == nil {
				sc, err = replay(st.d, path, f, length)
			}
		}
		if err != nil {
			return 0, 0, err
		}
		if err := st.dropTorn(path, f, sc, length); err != nil {
			return 0, 0, err
		}
	}
	size = sc.end
	st.Logger.Info("state journal replayed", append(append([]any{"path", path, "frames", sc.frames, "bytes", size},
		st.d.Replayed()...), "preallocated", sc.zeros, "took", time.Since(begun).Round(time.Microsecond))...)
	return size, length, nil
}

// dropTorn erases the torn last write sc found (zeros where it was, as
// preallocated), so that the next frame is written in its place, and logs
// it with what it held (size is the file's length).
func (st *start) dropTorn(path string, f File, sc scan, size int64) error {
	t := sc.torn
	if t == nil {
		return nil
	}
	held, err := st.logTorn(path, f, t, size)
	if err != nil {
		return fmt.Errorf("state journal %s: reading the torn last frame: %w", path, err)
	}
	if _, err := writeZeros(f, t.off, t.end-t.off); err != nil {
		return fmt.Errorf("state journal %s: dropping the torn last frame: %w", path, err)
	}
	if err := datasync(f); err != nil {
		return fmt.Errorf("state journal %s: dropping the torn last frame: %w", path, err)
	}
	st.Logger.Warn("state journal: dropped a torn last frame (a write the crash stopped part way; none of its requests was answered)",
		append(append([]any{"path", path, "frame", t.frame, "offset", t.off, "bytes", t.end - t.off, "torn", t.torn},
			held.attrs(st.Counts)...), "unreadable_bytes", held.unreadable)...)
	return nil
}

// logTorn has the domain log each record of the torn last frame t as far
// as the file holds it: its records before the first sector never written
// and the file's end, one cut short too (Domain.Dropped says whether it
// reads). None was acknowledged, but an operator looking for one needs to
// know it.
func (st *start) logTorn(path string, f File, t *tail, size int64) (dropped, error) {
	var d dropped
	var hdr [FrameHeader]byte // zeros when the file ends inside it
	if size-t.off >= FrameHeader {
		if _, err := f.ReadAt(hdr[:], t.off); err != nil {
			return d, err
		}
	}
	n, reason := frameLength(hdr[:])
	if reason != "" {
		d.unreadable = int(t.end - t.off)
		return d, nil
	}
	frame := make([]byte, min(FrameHeader+n, size-t.off)) // what the file holds of it
	if _, err := f.ReadAt(frame, t.off); err != nil {
		return d, err
	}
	cut := int64(len(frame))
	if z := unwrittenSector(frame, t.off); z >= 0 {
		cut = max(FrameHeader, z-t.off)
	}
	d.unreadable = len(frame) - int(cut) // from the first sector never written on
	d.unreadable += st.logRecords(frame[FrameHeader:cut], Drop{Path: path, FrameOffset: t.off, Torn: true}, &d)
	return d, nil
}

// journalLength returns the length of the journal f, narrowing its
// permissions to 0600 first.
func journalLength(path string, f File) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("state journal %s: %w", path, err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := chmodPrivate(path); err != nil {
			return 0, fmt.Errorf("state journal %s: %w", path, err)
		}
	}
	return info.Size(), nil
}
