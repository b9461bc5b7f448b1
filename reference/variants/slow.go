package variants

import (
	"fmt"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/reference"
)

// Slow is the reference behind a server that holds every request for
// delay before it serves it, as a busy or distant server answers late; a
// request its client gave up on meanwhile is not served. Every answer is
// one the reference gave late, so every answer is counted changed. A judge
// must pass it within its bounds: slowness is no rule of the document.
//
// It is not in All: each judge's test of All would wait out the delay on
// every request, and the generated mode sends some 1,400 one after
// another (at 20 ms its test of All went from 36 s to 62 s with the race
// detector; the suite, the generated mode and the load tester all passed
// it). The concurrency probe's test holds it to a server 250 ms late.
func Slow(delay time.Duration) Variant {
	return Variant{
		Name: fmt.Sprintf("answers every request after %s", delay),
		Why:  "the document states no response time (§8 lists the limits; rate limits are \"not shown\"): a server may answer late, as long as it answers",
		Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-r.Context().Done():
					return // the client gave up: nothing was served
				}
				changed(r) // late, where the reference answers at once
				next.ServeHTTP(w, r)
			})
		},
	}
}
