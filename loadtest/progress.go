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
	Unexpected int64         // answers other than expected, so far, but the throttled ones
	Throttled  int64         // throttled answers (429, or 503 with Retry-After), so far: neither expected nor unexpected
	Violations int64         // contract violations, so far
	// CreatedAgain counts the payments answered "created" for an id an
	// earlier answer had created already, so far (the duplicate debits of
	// the verdict, found as they come); FindsCreatedAgain is set when the
	// run looks for them (its scenario sends ids again).
	CreatedAgain      int64
	FindsCreatedAgain bool
	// Gateway counts the answers a gateway gave instead of the API, so
	// far; GatewayStopped is set once they are most of the answers: the
	// attack stops, and the run is incomplete.
	Gateway        int64
	GatewayStopped bool
	// Reconciles is set when the run judges its payments after the
	// attack (look-ups and wallets): the line says so.
	Reconciles bool
	// BehindFrom is when the generator first fell behind its schedule
	// (Generator.BehindFrom); 0 while it has kept it.
	BehindFrom time.Duration
	// Phase is PhaseReconcile while the ids are looked up after the
	// attack, with LookedUp of ToLookUp done and Elapsed since it began;
	// empty during the attack.
	Phase              string
	LookedUp, ToLookUp int64
}
