//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package reference

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on the state directory (a lock file's
// flock), so two servers never write one journal. The kernel releases it
// when the process dies, so a killed server's directory opens at once.
func lockDir(dir string) (func(), error) {
	path := filepath.Join(dir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) //nolint:gosec // the operator's --state directory
	if err != nil {
		return nil, stateDirError(dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("state directory %s is in use by another reference server", dir)
		}
		return nil, fmt.Errorf("state directory %s: lock: %w", dir, err)
	}
	return func() { _ = f.Close() }, nil
}
