package throttle

import (
	"context"
	"net/http"

	"github.com/partnercommerce/conformance/internal/contract"
)

// Every judge of a run sends its requests the one way Send does, with the
// run's patience: the probe and the generated judge through it (the
// scenarios and the load tester still hold loops of their own, which do
// the same: wait, send, tell a throttle or a gateway's page from the API's
// answer, resend).

// Try is what one send of a request came to: the answer's status, header
// and body, or the error of a request that got no answer.
type Try struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
}

// Sent is what Send came to: the last try, the throttled answers waited
// out before it, the gateway's page it was (Gateway, with Err the page),
// and for a payment sent again after throttled answers the finding of
// CheckResent (Resent), or nil.
type Sent struct {
	Try
	Throttled int
	Gateway   *contract.Gateway
	Resent    error
}

// Send sends a request with the run's patience. It waits for the gate
// (Wait), sends once (once, told how many tries came before), and:
//   - waits out a throttled answer (contract.Throttled) and sends again;
//   - counts a gateway's page (contract.GatewayAnswer) as no answer of the
//     API (Gateway): the run stops once most answers are a gateway's;
//   - counts an answer of the API (Answered);
//   - for a payment (payment, its body, not nil) remembers its
//     partner_trx_id once answered or without an answer, and checks a
//     payment sent again after throttled answers (CheckResent), unless
//     shared (requests with one partner_trx_id in flight together: a 409
//     then says nothing of the resend).
//
// A request the gate did not let go has Err set to the gate's error; stop
// is called with it when it stops the run (Stops), and with the error of
// the gateway's page that did.
func (g *Gate) Send(ctx context.Context, once func(ctx context.Context, tries int) Try, payment []byte, shared bool, stop func(error)) Sent {
	var s Sent
	held := func(err error) Sent {
		if Stops(err) {
			stop(err)
		}
		s.Try = Try{Err: err}
		return s
	}
	for {
		if err := g.Wait(ctx); err != nil {
			return held(err)
		}
		s.Try = once(ctx, s.Throttled)
		if s.Err == nil && contract.Throttled(s.Status, s.Header) {
			s.Throttled++
			if _, err := g.Throttled(s.Header); err != nil {
				return held(err)
			}
			continue
		}
		if s.Err == nil {
			if page, ok := contract.GatewayAnswer(s.Status, s.Header, s.Body); ok {
				s.Gateway, s.Err = &page, page
				if err := g.Gateway(page); err != nil {
					stop(err)
				}
			} else {
				g.Answered()
			}
		}
		if payment != nil {
			if s.Throttled > 0 && s.Err == nil && !shared {
				s.Resent = g.CheckResent(payment, s.Status)
			}
			g.PaymentAnswered(payment)
		}
		return s
	}
}
