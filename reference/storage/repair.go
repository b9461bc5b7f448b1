package storage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// repairJournal starts over a damaged journal (Options.Repair): it keeps a
// copy of the file as it is, has the domain log every record from the
// damage on (they are dropped), erases them (zeros, as preallocated) and
// resets the domain's state, which the caller replays again from the
// journal's intact frames.
func (st *start) repairJournal(path string, f File, length int64, damage *CorruptError) error {
	end, err := lastNonZero(f, damage.Offset, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	copyPath, err := st.keepCopy(path, f, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: keeping a copy: %w", path, err)
	}
	st.Logger.Warn("state journal repair: kept a copy of the damaged journal", "path", path, "copy", copyPath,
		"offset", damage.Offset, "damage", damage.Reason)
	dropped, err := st.logDropped(path, f, damage.Offset, end, length)
	if err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	if _, err := writeZeros(f, damage.Offset, end-damage.Offset); err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	if err := datasync(f); err != nil {
		return fmt.Errorf("state journal %s: repairing: %w", path, err)
	}
	st.Logger.Warn("state journal repaired: the damaged frame and everything after it are dropped",
		append(append([]any{"path", path, "offset", damage.Offset, "bytes", end - damage.Offset}, dropped.attrs(st.Counts)...),
			"unreadable_bytes", dropped.unreadable)...)
	st.d.Reset()
	return nil
}

// keepCopy copies the journal's first length bytes to a new file beside
// it, fsynced, and returns its path.
func (st *start) keepCopy(path string, f File, length int64) (string, error) {
	name := path + ".damaged-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	c, err := st.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 1<<20)
	for off := int64(0); off < length && err == nil; off += int64(len(buf)) {
		b := buf[:min(int64(len(buf)), length-off)]
		if _, err = f.ReadAt(b, off); err == nil {
			_, err = c.WriteAt(b, off)
		}
	}
	if err == nil {
		err = c.Sync()
	}
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(filepath.Dir(name), st.Open)
	}
	return name, err
}

// dropped counts the records a start dropped: by the domain's counts
// (Options.Counts), and the bytes that do not read.
type dropped struct {
	counts     map[int]int
	unreadable int
}

// attrs returns the counts for the log, named by names.
func (d *dropped) attrs(names []string) []any {
	var attrs []any
	for i, name := range names {
		attrs = append(attrs, name, d.counts[i])
	}
	return attrs
}

// logDropped has the domain log every record in the journal's bytes
// [off, end): the damaged frame (read as far as it goes) and whatever
// follows it. A frame is read whole from the file (of length bytes), past
// end when its last bytes are zeros.
func (st *start) logDropped(path string, f File, off, end, length int64) (dropped, error) {
	var d dropped
	b := make([]byte, end-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return d, err
	}
	var hdr [FrameHeader]byte
	var body []byte
	for p := 0; p < len(b); {
		if _, reason, err := readFrame(f, off+int64(p), length, &hdr, &body); err != nil {
			return d, err
		} else if reason == "" || reason == checksumMismatch { // a mismatch is not intact
			at, intact := off+int64(p), reason == ""
			d.unreadable += st.logRecords(body, Drop{Path: path, FrameOffset: at, FrameIntact: intact}, &d)
			p += FrameHeader + len(body)
			continue
		}
		q := bytes.Index(b[p+1:], []byte(FrameMagic)) // the next frame, if any
		if q < 0 {
			q = len(b) - p - 1
		}
		d.unreadable += len(bytes.ReplaceAll(b[p:p+1+q], []byte{0}, nil))
		p += 1 + q
	}
	return d, nil
}

// logRecords has the domain log each record of a dropped frame's body (at
// says where it was), counting them in d, and returns the bytes that do
// not read.
func (st *start) logRecords(body []byte, at Drop, d *dropped) int {
	unreadable := 0
	for rec, _ := range Records(body) { // an unreadable record still says its size
		switch k := st.d.Dropped(at, rec); k {
		case Unreadable:
			unreadable += rec.Size
		case Uncounted:
		default:
			if d.counts == nil {
				d.counts = map[int]int{}
			}
			d.counts[k]++
		}
	}
	return unreadable
}
