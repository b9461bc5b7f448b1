//go:build !unix

package httpapi

import "time"

// processCPU is not measured here: BenchmarkCreatePaymentVsStatic reports
// wall times only.
func processCPU() time.Duration { return 0 }
