package probe

import (
	"context"
	"errors"
)

// Run runs the probe's cases against the profile's target and returns what
// happened. It returns an error only when the run could not take place
// (ErrUsage).
func Run(ctx context.Context, opts Options) (Result, error) {
	if _, err := opts.withDefaults(); err != nil {
		return Result{}, err
	}
	return Result{}, errors.New("probe: the cases are not built yet")
}
