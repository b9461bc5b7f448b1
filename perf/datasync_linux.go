package perf

import (
	"errors"
	"os"
	"syscall"
)

// datasync is fdatasync(2) on f, as the reference's journal makes its frames
// durable (reference/storage/datasync_linux.go).
func datasync(f *os.File) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		for {
			if serr = syscall.Fdatasync(int(fd)); !errors.Is(serr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	return serr
}
