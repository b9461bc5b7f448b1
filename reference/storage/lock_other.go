//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package storage

// lockDir does not lock on this system: the operator must not start two
// servers over one state directory.
func lockDir(string) (func(), error) { return func() {}, nil }
