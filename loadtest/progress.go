package loadtest

import "time"

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
