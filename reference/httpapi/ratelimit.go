package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// MsgRateLimited is the message of the reference's 429 answer: the
// document shows no rate limit (§8), so the message is the reference's own
// (docs/reference-choices.md).
const MsgRateLimited = "Terlalu banyak permintaan. Coba lagi nanti."

// maxRateKeys bounds the secret keys limited one by one: past that many,
// the requests of keys not seen yet share one bucket, so that a client
// sending a new key with every request cannot grow the table.
const maxRateKeys = 4096

// RateLimit limits the requests of each secret key (X-SECRET-KEY, whatever
// its value) to perSecond a second, as a gateway in front of a real server
// does: a token bucket per key, holding one second's worth. A request
// beyond it is answered before next sees it: 429 Too Many Requests, with
// Retry-After (the whole seconds until the bucket holds a token again, at
// least 1) and the contract's error body. perSecond below 1 limits nothing.
func RateLimit(next http.Handler, perSecond int) http.Handler {
	if perSecond < 1 {
		return next
	}
	l := NewLimiter(perSecond, false)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wait := l.Take(r.Header.Get("X-Secret-Key"))
		if wait == 0 {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		writeError(w, http.StatusTooManyRequests, MsgRateLimited)
	})
}

// Limiter is a token bucket per key, refilled at perSecond a second and
// holding as many: --rate-limit's (RateLimit) and the throttling test
// doubles'. Past maxRateKeys keys, the keys not seen yet share one bucket,
// so that a client sending a new key with every request cannot grow the
// table.
type Limiter struct {
	perSecond int
	empty     bool
	// mu guards keys.
	mu     sync.Mutex
	keys   map[string]*rate.Limiter
	others *rate.Limiter // the keys past maxRateKeys
}

// NewLimiter returns a limiter of perSecond a second (at least 1) per key.
// With empty, a key's bucket starts empty, as a gateway's allowance does
// after it starts or when a new key first calls; else full.
func NewLimiter(perSecond int, empty bool) *Limiter {
	l := &Limiter{perSecond: max(perSecond, 1), empty: empty, keys: map[string]*rate.Limiter{}}
	l.others = l.newBucket(time.Now())
	return l
}

func (l *Limiter) newBucket(now time.Time) *rate.Limiter {
	b := rate.NewLimiter(rate.Limit(l.perSecond), l.perSecond)
	if l.empty {
		b.AllowN(now, l.perSecond)
	}
	return b
}

// Take takes a token from key's bucket now and returns 0, or, when the
// bucket holds none, takes nothing and returns how long until it holds one.
func (l *Limiter) Take(key string) time.Duration {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.keys[key]
	if !ok {
		b = l.others
		if len(l.keys) < maxRateKeys {
			b = l.newBucket(now)
			l.keys[key] = b
		}
	}
	res := b.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if wait > 0 {
		res.CancelAt(now) // refused: the token is not taken
	}
	return wait
}
