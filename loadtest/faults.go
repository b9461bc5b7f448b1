package loadtest

import (
	"context"
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
)

// startNemesis is the engine's hook at the attack's start: the schedule's
// times count from there. c is the run's validated configuration (its log
// is never nil).
func startNemesis(ctx context.Context, c *config, faults **nemesis.Execution) func(time.Time) {
	if len(c.Nemesis) == 0 {
		return nil
	}
	return func(began time.Time) {
		*faults = nemesis.Start(ctx, c.Nemesis, began, c.Load.Duration, c.nemesisLog)
	}
}

// awaitTarget waits, up to wait, for the target to answer anything at all
// (a payment status of an id no run uses): after a fault, a restarted
// server may take a moment to listen again. It returns "" once the target
// answers, and otherwise one line saying it does not, which stops the
// reconciliation rather than spending its whole timeout on look-ups that
// cannot succeed.
func (e *engine) awaitTarget(ctx context.Context, auth string, wait time.Duration) string {
	start := time.Now()
	deadline := start.Add(wait)
	probe := e.cl.paymentStatus(auth, "probe-"+e.cfg.RunID)
	for tries := 0; ; tries++ {
		r := e.cl.doTimed(ctx, probe)
		r.release()
		if r.err == nil {
			return ""
		}
		if tries == 0 && wait > 0 {
			e.cfg.logger.Warn(fmt.Sprintf("the target does not answer after the attack (%s): waiting up to %s for it to come back before reconciling",
				errorText(r.err), readable.Duration(wait)))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Sprintf("the target did not answer at reconciliation time (%s, tried for %s): nothing was looked up or read",
				errorText(r.err), readable.Duration(time.Since(start)))
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// targetWait is how long reconciliation waits for the target to answer:
// long enough for a server restarted by the last fault to come back.
func (c *config) targetWait() time.Duration {
	if len(c.Nemesis) > 0 {
		return min(30*time.Second, c.ReconcileTimeout)
	}
	return min(2*time.Second, c.ReconcileTimeout)
}
