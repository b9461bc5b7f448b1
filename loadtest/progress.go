package loadtest

import (
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// PhaseReconcile is the Phase of the progress of the look-ups after the attack.
const PhaseReconcile = "reconcile"

// Progress is a snapshot of a running attack, delivered every interval and
// once more, with Final set, when the attack ends.
type Progress struct {
	Elapsed    time.Duration
	Sent       int64
	Done       int64
	InFlight   int64
	Final      bool          // the last update, when the attack has ended
	Rate       float64       // sends per second over the last interval (the whole run when Final)
	P50, P99   time.Duration // corrected latency of the requests scheduled since the last update (the charts' buckets)
	Unexpected int64         // responses other than expected, so far
	Violations int64         // contract violations, so far
	// BehindFrom is when the generator first fell behind its schedule
	// (Generator.BehindFrom); 0 while it has kept it.
	BehindFrom time.Duration
	// Phase is PhaseReconcile while the ids are looked up after the
	// attack, with LookedUp of ToLookUp done and Elapsed since it began;
	// empty during the attack.
	Phase              string
	LookedUp, ToLookUp int64
}

// collect gathers results and delivers progress, which it reads from the
// run's tally.
func (e *engine) collect(results <-chan record.HitResult, began time.Time, done chan<- struct{}) {
	defer close(done)
	var tick <-chan time.Time
	if e.cfg.progress != nil && e.cfg.progressEvery > 0 {
		tk := time.NewTicker(e.cfg.progressEvery)
		defer tk.Stop()
		tick = tk.C
	}
	t := e.rec.Tally
	lastSent, lastAt := int64(0), began
	report := func(now time.Time, final bool) {
		sum := t.Totals()
		p := Progress{Elapsed: now.Sub(began), Sent: e.sent.Load(), Done: int64(sum.Requests), InFlight: e.inFlight.Load(),
			Final: final, Unexpected: int64(sum.Requests - sum.Expected), Violations: int64(t.Violations)}
		p.BehindFrom, _ = e.behind.span()
		if final {
			lastSent, lastAt = 0, began
		}
		if d := now.Sub(lastAt).Seconds(); d > 0 {
			p.Rate = float64(p.Sent-lastSent) / d
		}
		recent := t.Timeline.Recent(lastAt)
		p.P50, p.P99 = recent.P50, recent.P99
		lastSent, lastAt = p.Sent, now
		e.cfg.progress(p)
	}
	for {
		select {
		case hr, ok := <-results:
			if !ok {
				// A final update, so that even a run shorter than one
				// progress interval reports what it did.
				if tick != nil {
					report(time.Now(), true)
				}
				return
			}
			e.keep(&hr)
		case now := <-tick:
			report(now, false)
		}
	}
}
