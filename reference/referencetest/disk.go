package referencetest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Disk is a small disk under a state directory, as a tmpfs of Size bytes
// mounted there would be, for the tests that fill it and free it where
// mounting one is not allowed: the files opened through Open and every
// other file in the directory (a filler an operator writes there, a copy
// of the journal) share Size bytes. A write that would take the files past
// it is cut short where the space ends and fails with ENOSPC, as the
// kernel cuts it; with WholeWrites, it writes nothing, as a file system
// that refuses a write it cannot hold whole does. Writing over bytes a
// file already has takes no space, and truncating a file frees what it
// held. Every write through the disk is serialized.
type Disk struct {
	dir string

	mu          sync.Mutex
	size        int64
	wholeWrites bool
}

// NewDisk is a disk of size bytes under dir.
func NewDisk(dir string, size int64) *Disk { return &Disk{dir: dir, size: size} }

// WholeWrites makes a write that does not fit write nothing.
func (d *Disk) WholeWrites() *Disk {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wholeWrites = true
	return d
}

// SetFree resizes the disk so that free bytes are left: 0 fills it, more
// frees space, as deleting a filler would.
func (d *Disk) SetFree(free int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	used, err := d.used()
	if err != nil {
		return err
	}
	d.size = used + free
	return nil
}

// Free is what is left of the disk.
func (d *Disk) Free() (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	used, err := d.used()
	return d.size - used, err
}

// used is the bytes of the regular files under the directory. The caller
// holds mu.
func (d *Disk) used() (int64, error) {
	var n int64
	err := filepath.WalkDir(d.dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		info, err := e.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	return n, err
}

// Open opens a file on the disk (os.OpenFile's signature, and a
// reference.StateFile's methods).
func (d *Disk) Open(name string, flag int, perm fs.FileMode) (*DiskFile, error) {
	if rel, err := filepath.Rel(d.dir, name); err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("referencetest: %s is not on the disk under %s", name, d.dir)
	}
	f, err := os.OpenFile(name, flag, perm) //nolint:gosec // a test's directory
	if err != nil {
		return nil, err
	}
	return &DiskFile{File: f, disk: d}, nil
}

// DiskFile is a file of a Disk.
type DiskFile struct {
	*os.File
	disk *Disk
}

// WriteAt writes what fits on the disk.
func (f *DiskFile) WriteAt(p []byte, off int64) (int, error) {
	d := f.disk
	d.mu.Lock()
	defer d.mu.Unlock()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	used, err := d.used()
	if err != nil {
		return 0, err
	}
	fits := info.Size() + d.size - used - off // the bytes from off the disk can hold
	if int64(len(p)) <= fits {
		return f.File.WriteAt(p, off)
	}
	n := 0
	if fits > 0 && !d.wholeWrites {
		n, err = f.File.WriteAt(p[:fits], off)
		if err != nil {
			return n, err
		}
	}
	return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

// Truncate changes the file's length, freeing what it held past it.
func (f *DiskFile) Truncate(size int64) error {
	f.disk.mu.Lock()
	defer f.disk.mu.Unlock()
	return f.File.Truncate(size)
}
