package steps

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/verdict"
)

// A run can end before its scenarios do, for two reasons that are neither
// the target's failure nor its pass: the target stopped answering (the run
// cannot go on), or the run was interrupted (Ctrl-C, or CI cancelling the
// job with SIGTERM). Either way the scenarios not run to their end are
// reported as skipped, "not run", and never as failed: a failure in a
// report is something the server did.

// ErrInterrupted marks a run that was interrupted by its context (a signal).
var ErrInterrupted = errors.New("interrupted")

// deadTargetFailures is the least number of requests in a row, across
// scenarios, that must get no answer before the run stops.
const deadTargetFailures = 5

// noAnswer counts a request that got no answer at a time (described: the
// sentence of TransportError). After deadAfter of them in a row, with no answer in
// between, the run is aborted: the requests in flight are cancelled and the
// scenarios not yet started are not run.
func (h *harness) noAnswer(described error, at time.Time) {
	if h.abortCtx.Err() != nil {
		return
	}
	n := h.consecutive.Add(1)
	if n == 1 {
		h.streakStart.Store(at.UnixNano())
	}
	if n < int64(h.deadAfter) {
		return
	}
	h.mu.Lock()
	if h.stopped == nil {
		h.stoppedAt = time.Now()
		h.stopped = &verdict.Stop{Cause: verdict.StopTarget, LastTransportError: described.Error(),
			Reason: fmt.Sprintf("the target stopped answering: %d requests in a row, across scenarios, got no answer", n)}
	}
	h.mu.Unlock()
	h.abort(fmt.Errorf("%w: stopped early: %d requests in a row, across scenarios, got no answer from the target (last: %w); the remaining scenarios were not run",
		ErrTarget, n, described))
}

// answered resets the count of requests in a row that got no answer.
func (h *harness) answered() { h.consecutive.Store(0) }

// interrupted reports whether the run's own context was cancelled.
func (h *harness) interrupted() bool { return h.runCtx != nil && h.runCtx.Err() != nil }

// interruption describes the interruption: "interrupted (interrupt signal received)".
func (h *harness) interruption() string {
	cause := context.Cause(h.runCtx)
	if cause == nil || errors.Is(cause, context.Canceled) && cause.Error() == context.Canceled.Error() {
		return "interrupted"
	}
	return "interrupted (" + cause.Error() + ")"
}

// settleStop reclassifies, once every scenario has ended, what the stop
// caused: a scenario whose last request got no answer during the streak
// that stopped the run, or within one request timeout before the stop (it
// may have been in flight when the target died), did not fail because of
// the server's answers, so it is reported as not run to its end. It returns
// the stop, if any, with its counts.
func (h *harness) settleStop(results []verdict.Case) *verdict.Stop {
	h.mu.Lock()
	var stop *verdict.Stop
	if h.stopped != nil {
		s := *h.stopped
		stop = &s
	}
	stoppedAt := h.stoppedAt
	h.mu.Unlock()
	notRun := 0
	for _, r := range results {
		if r.Status == verdict.StatusSkipped && r.NotRun {
			notRun++
		}
	}
	if stop == nil && h.interrupted() && notRun > 0 {
		ended := len(results) - notRun
		stop = &verdict.Stop{Cause: verdict.StopInterrupted, Reason: h.interruption(), AfterScenarios: ended}
	}
	if stop == nil {
		return nil
	}
	if stop.Cause == verdict.StopTarget {
		since := time.Unix(0, h.streakStart.Load())
		if early := stoppedAt.Add(-h.timeout); early.Before(since) {
			since = early
		}
		for i := range results {
			if notRunSince(&results[i], since, stop.Reason) {
				notRun++
			}
		}
	}
	stop.NotRun = notRun
	stop.AfterScenarios = len(results) - notRun
	return stop
}

// notRunSince reclassifies r, failed because its last request got no
// answer at or after since, as not run to its end because of the stop
// (reason), and reports whether it did.
func notRunSince(r *verdict.Case, since time.Time, reason string) bool {
	if r.Status != verdict.StatusFailed || r.UnansweredAt.IsZero() || r.UnansweredAt.Before(since) {
		return false
	}
	r.Status, r.NotRun = verdict.StatusSkipped, true
	r.Reason = "not run to its end: " + reason + "; its last request got no answer:\n" + r.Reason
	return true
}

// notRunReason is the reason of a scenario the stop left unfinished, or "".
func (s *scenario) notRunReason(err error) string {
	h := s.h
	switch {
	case s.interrupted || (err != nil && errors.Is(err, context.Canceled) && h.interrupted()):
		return "not run to its end: " + h.interruption()
	case err != nil && s.aborted:
		return "not run to its end: " + context.Cause(h.abortCtx).Error()
	case err != nil && s.endpointStopped != "":
		return "not run: " + s.endpointStopped
	}
	return ""
}

// notStarted is the reason a scenario is not started, or "".
func (h *harness) notStarted() string {
	switch {
	case h.interrupted():
		return "not run: " + h.interruption()
	case h.abortCtx.Err() != nil:
		return "not run: " + context.Cause(h.abortCtx).Error()
	}
	return ""
}
