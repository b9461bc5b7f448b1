package perf

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Floor is the disk's fdatasync floor in one directory: what one round of
// the journal costs when nothing else happens, measured by writing frames
// as the journal writes them, one after another.
type Floor struct {
	Bytes   int           // of each write: the journal's mean frame
	Writes  int64         // writes made durable, each by its own fdatasync
	Elapsed time.Duration // the whole loop
}

// Mean is the time of one write and its fdatasync, back to back: the
// shortest a round of the journal can take on this disk.
func (f Floor) Mean() time.Duration {
	if f.Writes == 0 {
		return 0
	}
	return f.Elapsed / time.Duration(f.Writes)
}

// floorFile is the length of the file MeasureFloor preallocates; its
// writes go round it.
const floorFile = 8 << 20

// MeasureFloor measures the fdatasync floor of dir's disk for d: a file
// there is filled with zeros and fsynced once (as the journal preallocates
// its space), then frames of size bytes are written into it one after
// another, each at the end of the last (from the start again at the
// file's end), each followed by fdatasync, as the journal writes its
// frames (reference/storage/journal.go). The file is removed.
func MeasureFloor(ctx context.Context, dir string, size int, d time.Duration) (Floor, error) {
	size = min(max(size, 1), floorFile)
	f, err := os.CreateTemp(dir, "perf-floor-")
	if err != nil {
		return Floor{}, err
	}
	defer func() { _ = os.Remove(f.Name()) }()
	defer func() { _ = f.Close() }()
	zeros := make([]byte, 64<<10)
	for off := int64(0); off < floorFile; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros, off); err != nil {
			return Floor{}, fmt.Errorf("fdatasync floor: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return Floor{}, fmt.Errorf("fdatasync floor: %w", err)
	}
	frame := make([]byte, size)
	for i := range frame {
		frame[i] = byte(i) | 1 // not zeros: the write changes the block
	}
	res := Floor{Bytes: size}
	var off int64
	start := time.Now()
	for ctx.Err() == nil && time.Since(start) < d {
		if off+int64(size) > floorFile {
			off = 0
		}
		if _, err := f.WriteAt(frame, off); err != nil {
			return Floor{}, fmt.Errorf("fdatasync floor: %w", err)
		}
		if err := datasync(f); err != nil {
			return Floor{}, fmt.Errorf("fdatasync floor: %w", err)
		}
		off += int64(size)
		res.Writes++
	}
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}
