//go:build !linux

package storage

// datasync makes f's written bytes durable. Outside Linux it is f.Sync
// (fsync, or F_FULLFSYNC on macOS): the portable call, which also writes
// the metadata fdatasync may skip.
func datasync(f File) error { return f.Sync() }
