//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive flock on the state directory itself, so two
// servers never write one journal. No file holds the lock, so none can be
// removed to get around it; the kernel releases it when the process dies,
// so a killed server's directory opens at once.
func lockDir(dir string) (func(), error) {
	d, err := os.Open(dir) //nolint:gosec // the operator's --state directory
	if err != nil {
		return nil, stateDirError(dir, err)
	}
	if err := flock(d, dir, dir); err != nil {
		_ = d.Close()
		return nil, err
	}
	if err := dropLegacyLock(dir); err != nil {
		_ = d.Close()
		return nil, err
	}
	return func() { _ = d.Close() }, nil
}

// dropLegacyLock removes the lock file DIR/lock that earlier versions of
// the reference held, after checking that none holds it now.
func dropLegacyLock(dir string) error {
	path := filepath.Join(dir, "lock")
	f, err := os.Open(path) //nolint:gosec // a file of the operator's --state directory
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return stateDirError(dir, err)
	}
	defer func() { _ = f.Close() }()
	if err := flock(f, dir, path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return stateDirError(dir, err)
	}
	return nil
}

// flock takes an exclusive lock on f (what, in messages), without
// waiting.
func flock(f *os.File, dir, what string) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := raw.Control(func(fd uintptr) { lerr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB) }); err != nil {
		return err
	}
	switch {
	case errors.Is(lerr, syscall.EWOULDBLOCK):
		return fmt.Errorf("state directory %s is in use by another reference server (it holds a lock on %s)", dir, what)
	case lerr != nil:
		return fmt.Errorf("state directory %s: lock %s: %w", dir, what, lerr)
	}
	return nil
}
