package main

import (
	"errors"
	"flag"
	"time"

	"github.com/partnercommerce/conformance/internal/throttle"
)

// throttleFlags are the flags of a run against a target that may limit its
// rate (the suite and the generated mode).
type throttleFlags struct {
	rate    float64
	maxWait time.Duration
}

func (f *throttleFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&f.rate, "rate", 0, "pace the requests at this many a second (0: as fast as they come); a target's throttled answers (429, or 503 with Retry-After) are waited out and sent again in any case, and slow the pace down")
	fs.DurationVar(&f.maxWait, "max-throttle-wait", throttle.DefaultMaxWait, "bound on the time the run waits in all for a target that throttles it; past it the rest is not run (the target kept throttling) and the run is STOPPED (exit 2)")
}

// check refuses a negative rate and a bound that is not positive.
func (f *throttleFlags) check() error {
	if f.rate < 0 || f.maxWait <= 0 {
		return errors.New("--rate must not be negative and --max-throttle-wait must be positive")
	}
	return nil
}
