package loadtest

import (
	"math"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
)

// The default worker cap of a paced run lies between these bounds.
const (
	// MinDefaultWorkers keeps a slow rate's cap above what an ordinary
	// latency needs.
	MinDefaultWorkers = 64
	// MaxDefaultWorkers bounds what a run that falls behind keeps in
	// flight: each worker holds a goroutine, a connection and a request,
	// about 37 KiB together (measured: 367 MiB with 10,000 workers waiting
	// on a target that never answers), so about 185 MiB at this cap.
	MaxDefaultWorkers = 5000
)

// defaultWorkerCap is the worker cap of a paced run given none: the
// requests its peak rate starts within one timeout. No answer takes longer
// than the timeout, so a run that keeps its schedule never reaches it; a
// run that falls behind (the target or the generator's CPU too slow for
// the rate) waits for a worker at the cap, and says so, instead of starting
// workers without bound.
func defaultWorkerCap(lp pacing.LoadProfile, timeout time.Duration, waveSize int) int {
	n := math.Ceil(peakRate(lp) * timeout.Seconds())
	return int(max(min(n, MaxDefaultWorkers), MinDefaultWorkers, float64(waveSize)))
}

// peakRate is the highest rate lp schedules, per second.
func peakRate(lp pacing.LoadProfile) float64 {
	switch lp.Pacing {
	case pacing.Linear:
		return max(lp.Rate, lp.EndRate)
	case pacing.Sine:
		return lp.Rate + lp.Amplitude
	case pacing.Stages:
		peak := 0.0
		for _, st := range lp.Stages {
			peak = max(peak, peakRate(st))
		}
		return peak
	}
	return lp.Rate
}
