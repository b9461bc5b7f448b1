package variants

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// throttlesPerSecond is the rate limit of throttles: requests a second per
// secret key and operation.
const throttlesPerSecond = 1000

// Throttles is a gateway in front of the reference with a rate limit: a
// token bucket per secret key and operation (method and path), refilled at
// throttlesPerSecond and holding as many, that starts empty, as a
// gateway's allowance does after it starts or when a new key first calls.
// A request the bucket cannot pay for is answered 503 Service Unavailable
// with Retry-After in whole seconds, rounded down (0: come back now), and
// a text body the judges must not read. So every judge's run is throttled,
// whatever its speed: the first request of each operation it sends, at
// least, and a run faster than the limit more often. Throttled counts the
// answers it throttled. (All holds it too; the judges' tests of
// throttling use it alone.)
func Throttles() Variant {
	var throttled atomic.Int64
	return Variant{
		Name: "throttles with 503 and Retry-After: each secret key and operation starts with no allowance, then 1,000 a second",
		Why: "§8: \"Rate limits: not shown.\" A server may refuse a request for its rate (RFC 6585 §4; a 503 with Retry-After, " +
			"RFC 9110 §15.6.4) and say when to come back (§10.2.3); the request is not processed",
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			buckets := httpapi.NewLimiter(throttlesPerSecond, true) // each starts empty
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				wait := buckets.Take(r.Header.Get("X-Secret-Key") + " " + r.Method + " " + r.URL.Path)
				if wait == 0 {
					next.ServeHTTP(w, r)
					return
				}
				throttled.Add(1)
				changed(r) // an answer in place of the reference's
				w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = io.WriteString(w, "busy: come back later\n")
			})
		},
		Throttled: &throttled,
	}
}
