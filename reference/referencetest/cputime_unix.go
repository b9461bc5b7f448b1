//go:build unix

package referencetest

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used, user and system; the
// benchmarks report it per request beside wall time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
