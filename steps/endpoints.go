package steps

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// One endpoint can stop answering while the others still do: a payment
// service that hangs behind a gateway whose other routes are fine. Its
// scenarios would each wait out a request timeout, one after the other. After
// stuckEndpointAfter requests to it in a row got no answer, while the target
// answered other requests meanwhile, the run stops sending it: its requests
// in flight are cancelled and the scenarios that reach it afterwards are
// not run to their end ("not run: the target stopped answering POST
// /client/v2/payment"), reported as skipped, never as failed. The run goes
// on with the other endpoints; a target that answers nothing at all is the
// whole-target stop (stop.go).

// stuckEndpointAfter is the number of requests in a row to one endpoint
// that must get no answer before the run stops sending it.
const stuckEndpointAfter = 3

// endpoints is the state of each endpoint the run sent a request to.
type endpoints struct {
	mu sync.Mutex
	by map[string]*endpoint
	// lastAnswer is when any request last got an answer.
	lastAnswer time.Time
}

// endpoint is one endpoint's streak of requests without an answer, and its
// stop once the target stopped answering it.
type endpoint struct {
	key         string
	streak      int
	streakStart time.Time
	lastErr     string
	// ctx is cancelled when the endpoint is stopped (reason), which ends
	// its requests in flight.
	ctx    context.Context
	cancel context.CancelCauseFunc
	reason string
}

// errEndpointStopped marks a request not sent, or cancelled, because the
// target stopped answering its endpoint.
var errEndpointStopped = errors.New("the run stopped sending this endpoint")

// endpointKey names the endpoint of a request: "POST /client/v2/payment",
// its path taken after the base URL's.
func (h *harness) endpointKey(method, path string) string {
	if h.profile == nil {
		return method + " " + path
	}
	base := h.profile.BaseURL
	if i := strings.Index(base, "://"); i >= 0 {
		base = base[i+3:]
	}
	if i := strings.IndexByte(base, '/'); i >= 0 {
		path = strings.TrimPrefix(path, strings.TrimRight(base[i:], "/"))
	}
	return method + " " + path
}

// endpoint returns the endpoint named key, created on its first request.
func (h *harness) endpoint(key string) *endpoint {
	h.eps.mu.Lock()
	defer h.eps.mu.Unlock()
	if h.eps.by == nil {
		h.eps.by = map[string]*endpoint{}
	}
	ep := h.eps.by[key]
	if ep == nil {
		ep = &endpoint{key: key}
		ep.ctx, ep.cancel = context.WithCancelCause(context.Background())
		h.eps.by[key] = ep
	}
	return ep
}

// endpointStopped is why the run stopped sending ep, or "".
func (h *harness) endpointStopped(ep *endpoint) string {
	h.eps.mu.Lock()
	defer h.eps.mu.Unlock()
	return ep.reason
}

// endpointAnswered notes that a request to ep got an answer at.
func (h *harness) endpointAnswered(ep *endpoint, at time.Time) {
	h.eps.mu.Lock()
	defer h.eps.mu.Unlock()
	h.eps.lastAnswer = at
	ep.streak = 0
}

// endpointNoAnswer counts a request to ep that got no answer, sent at sent
// (described: the sentence of TransportError). The stuckEndpointAfter-th in
// a row, when the target answered another request since the streak began,
// stops the endpoint.
func (h *harness) endpointNoAnswer(ep *endpoint, described error, sent time.Time) {
	h.eps.mu.Lock()
	defer h.eps.mu.Unlock()
	if ep.reason != "" {
		return
	}
	if ep.streak == 0 || sent.Before(ep.streakStart) {
		ep.streakStart = sent
	}
	ep.streak++
	ep.lastErr = described.Error()
	if ep.streak < stuckEndpointAfter || !h.eps.lastAnswer.After(ep.streakStart) {
		return
	}
	ep.reason = fmt.Sprintf("the target stopped answering %s", ep.key)
	ep.cancel(errEndpointStopped)
}

// settleEndpoints reclassifies, once every scenario has ended, what the
// stopped endpoints caused, as settleStop does for the whole target: a
// scenario whose last request to a stopped endpoint got no answer during its
// streak (or within one request timeout before it) was not run to its end.
// It returns the stopped endpoints, with their counts, in order.
func (h *harness) settleEndpoints(results []verdict.Case) []report.EndpointStop {
	h.eps.mu.Lock()
	var stopped []*endpoint
	for _, ep := range h.eps.by {
		if ep.reason != "" {
			stopped = append(stopped, ep)
		}
	}
	h.eps.mu.Unlock()
	slices.SortFunc(stopped, func(a, b *endpoint) int { return strings.Compare(a.key, b.key) })
	var out []report.EndpointStop
	for _, ep := range stopped {
		es := report.EndpointStop{Endpoint: ep.key, LastTransportError: ep.lastErr,
			Reason: fmt.Sprintf("%d requests in a row got no answer, while the target answered the other endpoints; the run stopped sending it", stuckEndpointAfter)}
		since := ep.streakStart.Add(-h.timeout)
		for i := range results {
			r := &results[i]
			if r.UnansweredOn != ep.key {
				continue
			}
			notRunSince(r, since, ep.reason)
			if r.Status == verdict.StatusSkipped && r.NotRun {
				es.NotRun++
			}
		}
		out = append(out, es)
	}
	return out
}
