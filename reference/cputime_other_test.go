//go:build !unix

package reference

import "time"

// processCPU is unknown here: the benchmarks report no CPU-time figures.
func processCPU() time.Duration { return 0 }
