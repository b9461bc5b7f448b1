//go:build !unix

package referencetest

import "time"

// ProcessCPU is not measured where getrusage is missing: it returns 0, and
// the benchmarks report wall times only.
func ProcessCPU() time.Duration { return 0 }
