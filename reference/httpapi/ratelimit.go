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
	l := &rateLimiter{next: next, perSecond: perSecond, keys: map[string]*rate.Limiter{}}
	l.others = l.newBucket()
	return l
}

type rateLimiter struct {
	next      http.Handler
	perSecond int
	// mu guards keys.
	mu     sync.Mutex
	keys   map[string]*rate.Limiter
	others *rate.Limiter // the keys past maxRateKeys
}

func (l *rateLimiter) newBucket() *rate.Limiter {
	return rate.NewLimiter(rate.Limit(l.perSecond), l.perSecond)
}

// bucket is the bucket of secret key key.
func (l *rateLimiter) bucket(key string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.keys[key]
	if !ok {
		if len(l.keys) >= maxRateKeys {
			return l.others
		}
		b = l.newBucket()
		l.keys[key] = b
	}
	return b
}

func (l *rateLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b := l.bucket(r.Header.Get("X-Secret-Key"))
	now := time.Now()
	res := b.ReserveN(now, 1)
	wait := res.DelayFrom(now)
	if wait == 0 {
		l.next.ServeHTTP(w, r)
		return
	}
	res.CancelAt(now) // refused: the token is not taken
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	writeError(w, http.StatusTooManyRequests, MsgRateLimited)
}
