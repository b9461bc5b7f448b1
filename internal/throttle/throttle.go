// Package throttle is a run's patience with a target that limits the rate
// of its clients (contract.Throttled: a 429, or a 503 with Retry-After). A
// Gate is shared by the requests of one run: before each request it waits
// while a throttled answer asked the run to hold off (Retry-After, or a
// bounded default when the header is absent) and keeps the run under a
// pace; after a throttled answer it extends the hold and halves the pace,
// so that the run settles under the rate the target allows instead of
// being refused again at every burst. The total time a run holds off is
// bounded: past MaxWait, the Gate refuses every further request with
// ErrKeptThrottling, and the run stops without a verdict on what it did
// not run.
//
// While nothing is throttled, the pace rises again, slowly, so that a run
// slowed down once is not slow for good.
//
// A gateway's page (contract.GatewayAnswer: nginx's default 503 of its
// limit_req, without Retry-After, is one) is not a throttled answer the
// Gate can wait out, and not the API's answer either: the Gate counts it
// (Gateway), and a run whose answers are mostly a gateway's stops
// (contract.MostlyGateway), INCOMPLETE rather than judged.
//
// The suite and the generated mode send every request through one; the
// load tester sends the requests it makes outside the attack (the catalog,
// the wallets, the status look-ups of the reconciliation) through one, and
// counts the attack's throttled answers instead (the attack measures).
package throttle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
)

// Defaults of a Gate.
const (
	// DefaultMaxWait bounds the time a run holds off in all.
	DefaultMaxWait = 3 * time.Minute
	// DefaultWait is the hold after a throttled answer without a readable
	// Retry-After; it doubles for each such answer in a row, up to
	// MaxDefaultWait.
	DefaultWait    = time.Second
	MaxDefaultWait = 16 * time.Second
	// MinHold is the shortest hold: a Retry-After of 0 (come back now)
	// still holds the run this long, so that a target that says so every
	// time is not asked again in a busy loop, and the bound is reached.
	MinHold = 10 * time.Millisecond
	// minRate is the slowest pace a Gate halves down to (requests a second).
	minRate = 1
	// recentAnswers is how many answers the first pace is measured from.
	recentAnswers = 256
	// calmFor is how long after its last halving a pace starts rising
	// again (by a quarter a second) while nothing is throttled.
	calmFor = 3 * time.Second
)

// ErrKeptThrottling is the error of a request the Gate refuses because the
// run held off for MaxWait in all: the target kept throttling.
var ErrKeptThrottling = errors.New("the target kept throttling")

// Options configure a Gate.
type Options struct {
	// Rate paces the requests (requests a second); 0 sends them as fast as
	// they come until the target throttles one.
	Rate float64
	// MaxWait bounds the time the run holds off in all (default
	// DefaultMaxWait).
	MaxWait time.Duration
}

// Gate is what one run knows of the target's rate limit. Its methods are
// safe for concurrent use.
type Gate struct {
	maxWait time.Duration
	rate    float64 // the pace asked for (Options.Rate)
	lim     *rate.Limiter

	// mu guards the fields below.
	mu        sync.Mutex
	notBefore time.Time     // no request is sent before
	slowedFor time.Time     // the end of the hold the pace was last halved for
	raisedAt  time.Time     // when the pace was last raised
	waited    time.Duration // the holds' union, so far
	throttled int64
	inARow    int                      // throttled answers without a Retry-After and no answer between
	recent    [recentAnswers]time.Time // when the last answers came, a ring
	answers   int                      // answers counted in recent
	pages     int                      // a gateway's answers (Gateway)
	firstPage contract.Gateway         // the first of them
	stopped   error                    // set once the run has held off for maxWait, or got mostly a gateway's answers

	used sync.Map // partner_trx_id → true: the ids of payments answered (PaymentAnswered)
}

// New returns the Gate of a run.
func New(o Options) *Gate {
	g := &Gate{maxWait: o.MaxWait, rate: o.Rate}
	if g.maxWait <= 0 {
		g.maxWait = DefaultMaxWait
	}
	if o.Rate > 0 {
		g.lim = rate.NewLimiter(rate.Limit(o.Rate), 1)
	}
	return g
}

// Wait waits until a request may be sent: past the hold, at the pace. It
// returns ErrKeptThrottling (wrapped, with what happened) once the run has
// held off for MaxWait, or the cause of ctx.
func (g *Gate) Wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		stopped, hold, lim := g.stopped, time.Until(g.notBefore), g.lim
		g.mu.Unlock()
		if stopped != nil {
			return stopped
		}
		if hold <= 0 {
			if lim == nil {
				return nil
			}
			if err := lim.Wait(ctx); err != nil {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				return fmt.Errorf("pacing: %w", err) // the next send is past ctx's deadline
			}
			return nil
		}
		t := time.NewTimer(hold)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
}

// Answered counts an answer that was not throttled.
func (g *Gate) Answered() {
	now := time.Now()
	g.mu.Lock()
	g.recent[g.answers%recentAnswers] = now
	g.answers++
	g.inARow = 0
	if g.lim != nil && now.Sub(g.slowedFor) >= calmFor && now.Sub(g.raisedAt) >= time.Second {
		g.speedUp(now)
	}
	g.mu.Unlock()
}

// Gateway counts an answer a gateway gave instead of the API
// (contract.GatewayAnswer): neither throttled nor the API's. Once the run
// has counted contract.GatewaySample answers, most of them a gateway's
// (contract.MostlyGateway), the Gate stops the run: Gateway and every
// Wait after it return a *contract.GatewayError (it matches
// contract.ErrGateway), which says how many answers were the gateway's,
// the first of them and what to change.
func (g *Gate) Gateway(page contract.Gateway) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped != nil {
		return g.stopped
	}
	g.pages++
	if g.pages == 1 {
		g.firstPage = page
	}
	if of := g.answers + g.pages; of >= contract.GatewaySample && contract.MostlyGateway(g.pages, of) {
		g.stopped = &contract.GatewayError{Gateway: g.firstPage, Count: g.pages, Of: of}
	}
	return g.stopped
}

// Stops reports whether err, a request's that the Gate did not let go,
// stops the run: the target kept throttling (ErrKeptThrottling), or its
// answers were mostly a gateway's (contract.ErrGateway).
func Stops(err error) bool {
	return errors.Is(err, ErrKeptThrottling) || errors.Is(err, contract.ErrGateway)
}

// speedUp raises the pace by a quarter, up to the pace asked for: the
// target has throttled nothing for calmFor, and the pace it was halved to
// may be below its limit now (the limit of a target shared with other
// clients comes back). g.mu is held.
func (g *Gate) speedUp(now time.Time) {
	pace := float64(g.lim.Limit()) * 1.25
	if g.rate > 0 {
		pace = min(pace, g.rate)
	}
	g.lim.SetLimit(rate.Limit(pace))
	g.raisedAt = now
}

// Throttled counts a throttled answer with header h and holds the run off
// as it asks (Retry-After, or the default; at least MinHold), and returns
// the hold. The first throttled answer of a hold that asks for more than
// MinHold also halves the pace (from the rate of the answers of the last
// second when the run was not paced yet): the next holds are fewer. It
// returns ErrKeptThrottling, wrapped, when the hold would take the run's
// waiting past MaxWait: the run holds off no more, and Wait refuses every
// further request.
func (g *Gate) Throttled(h http.Header) (time.Duration, error) {
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.throttled++
	if g.stopped != nil {
		return 0, g.stopped
	}
	wait, ok := contract.RetryAfter(h, now)
	if !ok {
		wait = min(DefaultWait<<min(g.inARow, 8), MaxDefaultWait)
		g.inARow++
	}
	wait = max(wait, MinHold)
	until := now.Add(wait)
	if wait > MinHold && now.After(g.slowedFor) {
		// A throttled answer that costs a wait, the first of its hold:
		// slow down to meet fewer.
		g.slowDown(now)
		g.slowedFor = until
	}
	if !until.After(g.notBefore) {
		return wait, nil // within a hold already under way
	}
	added := until.Sub(later(now, g.notBefore))
	if g.waited+added > g.maxWait {
		g.stopped = fmt.Errorf("%w: %s requests throttled, and after %s of waiting in all a further %s would pass the bound of %s (--max-throttle-wait)",
			ErrKeptThrottling, readable.Thousands(g.throttled), readable.Duration(g.waited), readable.Duration(wait), readable.Duration(g.maxWait))
		return 0, g.stopped
	}
	g.waited += added
	g.notBefore = until
	return wait, nil
}

// slowDown halves the pace: the current one, or, for a run not paced yet,
// the rate of its answers within the last second. g.mu is held.
func (g *Gate) slowDown(now time.Time) {
	var from float64
	if g.lim != nil {
		from = float64(g.lim.Limit())
	} else if from = g.recentRate(now); from == 0 {
		return // nothing known of the rate yet
	}
	pace := rate.Limit(max(from/2, minRate))
	if g.lim == nil {
		g.lim = rate.NewLimiter(pace, 1)
		return
	}
	g.lim.SetLimit(pace)
}

// recentRate is the rate of the answers within the second before now, from
// the oldest of them; 0 when there are fewer than two. g.mu is held.
func (g *Gate) recentRate(now time.Time) float64 {
	n, oldest := 0, now
	for i := range min(g.answers, recentAnswers) {
		at := g.recent[(g.answers-1-i)%recentAnswers]
		if now.Sub(at) > time.Second {
			break
		}
		n, oldest = n+1, at
	}
	if n < 2 || !now.After(oldest) {
		return 0
	}
	return float64(n) / now.Sub(oldest).Seconds()
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Summary is what the target's throttling cost a run, as its reports
// write it (summary.json's "throttling", the generated mode's result).
type Summary struct {
	// Throttled counts the throttled answers.
	Throttled int64 `json:"throttled_requests"`
	// WaitedSeconds is the time the run held off (the union of its holds);
	// MaxWaitSeconds its bound (--max-throttle-wait).
	WaitedSeconds  float64 `json:"waited_seconds"`
	MaxWaitSeconds float64 `json:"max_wait_seconds"`
	// Rate is the pace asked for (--rate; 0: none); PacedAt the pace at the
	// end (0: none), lower than Rate when the target throttled the run.
	Rate    float64 `json:"rate,omitempty"`
	PacedAt float64 `json:"paced_at,omitempty"`
}

// Summary returns what the Gate saw so far.
func (g *Gate) Summary() Summary {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := Summary{Throttled: g.throttled, WaitedSeconds: g.waited.Seconds(), MaxWaitSeconds: g.maxWait.Seconds(), Rate: g.rate}
	if g.lim != nil {
		s.PacedAt = float64(g.lim.Limit())
	}
	return s
}

// Stopped is the error that stopped the run (ErrKeptThrottling, wrapped,
// or a *contract.GatewayError), or nil.
func (g *Gate) Stopped() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopped
}

// Any reports whether there is anything to say: a request was throttled,
// or the run was paced.
func (s Summary) Any() bool { return s.Throttled > 0 || s.Rate > 0 }

// String says what the throttling cost a run, in one line: "12 requests
// throttled (429, or 503 with Retry-After) and sent again after the wait;
// the run waited 2.0 s in all (at most 3 min, --max-throttle-wait); paced
// at 90/s after".
func (s Summary) String() string {
	seconds := func(f float64) string { return readable.Duration(time.Duration(f * float64(time.Second))) }
	requests := "requests"
	if s.Throttled == 1 {
		requests = "request"
	}
	line := fmt.Sprintf("%s %s throttled (429, or 503 with Retry-After) and sent again after the wait; the run waited %s in all (at most %s, --max-throttle-wait)",
		readable.Thousands(s.Throttled), requests, seconds(s.WaitedSeconds), seconds(s.MaxWaitSeconds))
	switch {
	case s.PacedAt > 0 && (s.Rate == 0 || s.PacedAt < s.Rate):
		line += fmt.Sprintf("; paced at %.0f/s after", s.PacedAt)
	case s.Rate > 0:
		line += fmt.Sprintf("; paced at %.0f/s (--rate)", s.Rate)
	}
	return line
}

// PaymentAnswered remembers the partner_trx_id of the payment body (a
// create-payment request) that was answered, not throttled, or got no
// answer: that id may be used from then on.
func (g *Gate) PaymentAnswered(body []byte) {
	if id := trxID(body); id != "" {
		g.used.Store(id, true)
	}
}

// CheckResent checks the answer status to the payment body sent again
// after throttled answers (contract.CheckThrottledNotProcessed): a 409 is
// the server's finding unless an earlier request with the same
// partner_trx_id was answered or went unanswered.
func (g *Gate) CheckResent(body []byte, status int) error {
	id := trxID(body)
	if id == "" {
		return nil // no id to speak of: the document refuses it on its own
	}
	_, used := g.used.Load(id)
	return contract.CheckThrottledNotProcessed(status, used)
}

// trxID is the partner_trx_id of a create-payment body; "" when the body
// has none (or is not JSON).
func trxID(body []byte) string {
	var b struct {
		ID string `json:"partner_trx_id"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	return b.ID
}
