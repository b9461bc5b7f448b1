package contract

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SentenceThrottle is the sentence Throttled rests on.
const SentenceThrottle = "§8: \"Rate limits: not shown.\" A server may limit the rate of its clients, as the gateways in front of " +
	"real servers do: a 429 Too Many Requests (RFC 6585 §4), or a 503 Service Unavailable with Retry-After (RFC 9110 §15.6.4), " +
	"refuses the request without processing it and is not the answer of the API; the client waits as Retry-After says " +
	"(RFC 9110 §10.2.3) and sends the same request again."

// Throttled reports whether an answer with status and header refuses the
// request for its rate rather than answering it: a 429, or a 503 that says
// when to come back (Retry-After). Every judge skips such an answer: it is
// neither a pass nor a failure of the API, and its body is not read. A 503
// without Retry-After is a server fault, as any 5xx.
func Throttled(status int, h http.Header) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true
	case http.StatusServiceUnavailable:
		return h.Get("Retry-After") != ""
	}
	return false
}

// RetryAfter reads the Retry-After header of h at now: delay-seconds, or an
// HTTP date (RFC 9110 §10.2.3, in any of the three formats
// http.ParseTime reads). A date in the past is no wait. ok is false when
// the header is absent or unreadable: the caller then waits a default of
// its own.
func RetryAfter(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(now), 0), true
}

// ErrThrottledProcessed is a payment that the server refused as throttled
// and processed all the same.
var ErrThrottledProcessed = errors.New("the server processed a payment it refused as throttled")

// CheckThrottledNotProcessed checks the answer (status) to a payment sent
// again, with the same partner_trx_id, after throttled answers: a
// throttled request was not processed, so the id is still free unless an
// earlier request with it was answered, or got no answer (usedBefore). A
// 409 then says that the server processed a request it said it refused.
func CheckThrottledNotProcessed(status int, usedBefore bool) error {
	if status != http.StatusConflict || usedBefore {
		return nil
	}
	return fmt.Errorf("%w: sent again after a throttled answer, the payment was answered 409 (partner_trx_id already used), "+
		"yet no earlier request with that partner_trx_id was answered or went unanswered: the throttled request was processed (%s)",
		ErrThrottledProcessed, SentenceThrottle)
}
