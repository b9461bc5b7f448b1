package record

import (
	"errors"
	"time"

	"github.com/partnercommerce/conformance/api"
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
	// Uncertain is true when no response came back (timeout, transport
	// error) to a request that may have reached the server.
	Uncertain bool `json:"uncertain"`
	// NotDelivered is true when the request never reached the server: no
	// connection could be made (refused, no route, the dial timed out).
	NotDelivered bool `json:"not_delivered,omitempty"`
	// Throttled is true when the target refused the request for its rate
	// (contract.Throttled: a 429, or a 503 with Retry-After): not processed,
	// not the API's answer; allowed, never a server error or a violation.
	Throttled bool `json:"throttled,omitempty"`
	// Gateway is true when a gateway in front of the target answered
	// instead of the API (contract.GatewayAnswer: a page in HTML, or text
	// with a proxy's Server header or a gateway's status): not the API's
	// answer, so neither a contract violation nor a server error of the
	// API; whether a payment it answered reached the API is not known.
	Gateway bool `json:"gateway,omitempty"`
	// Violation names the contract rule the response broke, if any.
	Violation string `json:"violation,omitempty"`
	// Shard is the index of the shard that sent the request (set by Merge).
	Shard int `json:"-"`
	// TrxID is the partner_trx_id of a payment, for the error set's
	// example; the results file keeps it for unexpected answers only.
	TrxID string `json:"-"`
	// Order numbers the results of one operation in the order they were
	// sent: their sequence number in the results file, as vegeta's plot
	// wants it.
	Order uint64 `json:"-"`
	// Exhibit is the request and its answer, for an unexpected answer: the
	// error set keeps the first of each (ErrorEntry.Exhibit), which the
	// results file carries.
	Exhibit *Exhibit `json:"-"`
}

// Corrected is the latency from the scheduled send time to the end of the
// response: what a user arriving on schedule would have waited.
func (r *Result) Corrected() time.Duration { return r.End().Sub(r.Scheduled) }

// serverError reports whether r is a 5xx or has no readable answer (no
// answer within the timeout, a broken connection, a body too large); a
// throttled 503 is not, nor a gateway's page (not the API's answer).
func (r *Result) serverError() bool {
	return !r.Throttled && !r.Gateway && (r.Code >= 500 || r.Code == 0 || r.Error == ErrTooLarge.Error())
}

// ErrCreatedAgain is the error of a payment answered "created" for a
// partner_trx_id an earlier answer of the run had created already (an
// idempotency wave's, or a retry's): the error set's key of every such
// answer, which the progress line counts as it comes.
const ErrCreatedAgain = "created again: an earlier answer had created this partner_trx_id already"

// HitResult carries a result and, for a payment creation, its ledger entry
// from a worker to the collector.
type HitResult struct {
	Result Result
	Pay    *Payment
}

// Truncate returns a copy of b cut to n bytes.
func Truncate(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	return append([]byte(nil), b...)
}

// The operations the load tester sends, named after what they do.
const (
	OpCreate    = "create"
	OpStatus    = "status"
	OpList      = "list"
	OpSync      = "sync"
	OpProfile   = "profile"
	OpMethods   = "methods"
	OpProvision = "provision"
)

// Amount is the amount object of a payment (document §2.7), in integers.
type Amount = api.Amount

// ErrTooLarge is the error of a response whose body is longer than
// maxBodyBytes: the body is cut there, so it is neither read nor checked.
var ErrTooLarge = errors.New("response larger than 1 MiB")
