package steps

import (
	"errors"
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/verdict"
)

// A target may limit the rate of its clients (§8: "Rate limits: not
// shown"): a throttled answer (contract.Throttled) is not the answer to the
// request a scenario sent. The run's gate (internal/throttle) holds every
// scenario off as the answer asks, and the recorder sends the same request
// again (a throttled request was not processed, so a payment keeps its
// partner_trx_id) and judges the answer that follows. Past
// --max-throttle-wait of holding off in all, the run stops: the scenarios
// not run to their end are "not run: the target kept throttling", never
// failed, and the run is STOPPED.

// throttled counts the throttled answer ex holds (from ep) and holds the
// run off as it asks; past the bound, it stops the run and returns the
// scenario's error.
func (r *recorder) throttled(ex *exchange, ep *endpoint) error {
	h := r.s.h
	if ex.Throttled == 0 {
		ex.FirstThrottle = fmt.Sprintf("%d, Retry-After %q", ex.Status, ex.RespHeader.Get("Retry-After"))
	}
	ex.Throttled++
	if _, err := h.gate.Throttled(ex.RespHeader); err != nil {
		return r.held(err, ep)
	}
	return nil
}

// held is the error of a request to ep the gate did not let go: the
// target kept throttling, or its answers were mostly a gateway's (the run
// stops), or the run stopped, stopped sending ep, or was interrupted while
// it held off.
func (r *recorder) held(err error, ep *endpoint) error {
	switch {
	case errors.Is(err, throttle.ErrKeptThrottling):
		r.s.h.keptThrottling(err)
	case errors.Is(err, contract.ErrGateway):
		r.s.h.gatewayStopped(err)
	}
	if throttle.Stops(err) {
		r.s.aborted = true
		return fmt.Errorf("the run stopped early: %w", err)
	}
	return r.noAnswer(err, ep, time.Now())
}

// keptThrottling stops the run: the target throttled it past
// --max-throttle-wait. The scenarios not yet started are not run, those
// under way are not run to their end.
func (h *harness) keptThrottling(err error) {
	h.stopRun(verdict.StopThrottled, err, throttleStop{err})
}

// stopRun stops the run for cause (a report.Stop… constant), said by err,
// unless it has stopped already, and cancels what is in flight with
// abort as its cause (the run's error).
func (h *harness) stopRun(cause string, err, abort error) {
	h.mu.Lock()
	if h.stopped == nil {
		h.stoppedAt = time.Now()
		h.stopped = &verdict.Stop{Cause: cause, Reason: err.Error()}
	}
	h.mu.Unlock()
	h.abort(abort)
}

// throttleStop is the cause of a run stopped because the target kept
// throttling: it reads as the gate's error ("the target kept throttling:
// …") and is a target that cannot be tested (ErrTarget, exit code 2).
type throttleStop struct{ err error }

func (s throttleStop) Error() string   { return s.err.Error() }
func (s throttleStop) Unwrap() []error { return []error{ErrTarget, s.err} }

// throttledProcessed is the failure of a payment answered 409 when sent
// again after throttled answers (contract.CheckThrottledNotProcessed).
func (s *scenario) throttledProcessed(ex *exchange, err error) error {
	return s.failure(ex, contract.SentenceThrottle,
		"a throttled payment is not processed: sent again with its partner_trx_id, it is created (or refused for what it is), never 409", "%v", err)
}
