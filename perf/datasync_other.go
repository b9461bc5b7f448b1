//go:build !linux

package perf

import "os"

// datasync is f.Sync outside Linux, as the reference's journal does there.
func datasync(f *os.File) error { return f.Sync() }
