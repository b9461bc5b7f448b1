package storage

import (
	"errors"
	"os"
	"syscall"
)

// datasync makes f's written bytes durable with fdatasync(2): within the
// journal's preallocated space a write changes no metadata that reading it
// back needs (not the length, not the allocation), so fdatasync writes the
// data and flushes the disk's cache, without the file system's journal
// commit that fsync adds for the modification time. A File that is not
// an *os.File (a test's wrapper) is synced with its own Sync.
func datasync(f File) error {
	of, ok := f.(*os.File)
	if !ok {
		return f.Sync()
	}
	raw, err := of.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if !errors.Is(serr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: of.Name(), Err: serr}
	}
	return nil
}
