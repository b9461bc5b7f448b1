package loadtest

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Result is one request of a run: a vegeta.Result (Timestamp is the actual
// send time, Latency the raw latency) plus the time the pacer scheduled it,
// the operation, and the verdict of the checks.
type Result struct {
	vegeta.Result
	Scheduled time.Time `json:"scheduled"`
	Op        string    `json:"op"`
	// Expected is true when the response is what the scenario expects
	// (a created payment; for a wave, created or 409; 200 for reads).
	Expected bool `json:"expected"`
	// Allowed is true when the response is one the document allows for the
	// operation: expected, or a documented refusal (such as a 422 for an
	// empty wallet); never a 5xx, a contract violation or no answer.
	Allowed bool `json:"allowed"`
	// Uncertain is true when no response came back (timeout, transport error).
	Uncertain bool `json:"uncertain"`
	// Violation names the contract rule the response broke, if any.
	Violation string `json:"violation,omitempty"`
	// Shard is the index of the shard that sent the request (set by Merge).
	Shard int `json:"-"`
}

// Corrected is the latency from the scheduled send time to the end of the
// response: what a user arriving on schedule would have waited.
func (r *Result) Corrected() time.Duration { return r.End().Sub(r.Scheduled) }

// serverError reports whether r is a 5xx or has no readable answer (no
// answer within the timeout, a broken connection, a body too large).
func (r *Result) serverError() bool {
	return r.Code >= 500 || r.Code == 0 || r.Error == errTooLarge.Error()
}

// hitResult carries a result and, for a payment creation, its ledger entry
// from a worker to the collector.
type hitResult struct {
	r   *Result
	pay *Payment
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	return append([]byte(nil), b...)
}
