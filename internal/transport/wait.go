package transport

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The pause between two tries of Wait: firstPause, doubling up to maxPause.
const (
	firstPause = 100 * time.Millisecond
	maxPause   = time.Second
)

// Wait calls check until it passes (returns nil), for up to within, as
// --wait-for-target asks; with within 0 it calls it once. Every reason is
// worth waiting for: a starting server refuses connections, and the gateway
// in front of it may answer anything until it is up. Each call gets a
// context that ends when within has passed. Wait returns nil once check
// passes; else the last reason check gave (wrapped, so errors.Is still
// finds it), with how long and how many times it tried, or the reason ctx
// ended.
func Wait(ctx context.Context, within time.Duration, check func(context.Context) error) error {
	if within <= 0 {
		return check(ctx)
	}
	waitCtx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var last error
	pause := firstPause
	for tries := 1; ; tries++ {
		err := check(waitCtx)
		if err == nil {
			return nil
		}
		// A try cut short by the end of the wait says less than the one
		// before it.
		if last == nil || waitCtx.Err() == nil || !errors.Is(err, context.DeadlineExceeded) {
			last = err
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
			pause = min(2*pause, maxPause)
		case <-waitCtx.Done():
			t.Stop()
			if ctx.Err() != nil {
				return fmt.Errorf("%w while waiting for the target; the last try: %w", context.Cause(ctx), last)
			}
			return fmt.Errorf("the target did not pass the preflight check within --wait-for-target %s (%d tries); the last: %w", within, tries, last)
		}
	}
}
