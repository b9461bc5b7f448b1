package steps

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/verdict"
)

// A scenario whose rule the target kept it from observing is not judged
// (verdict.StatusNotJudged): the target answered what the scenario needed
// with an answer the document allows (a 422 for a gateway payment, the
// system fault of section 7), or its data lacks what the scenario needs (no
// gateway method any price reaches). The server is not at fault, so it is
// no failure; but the rule was not judged, so it is no pass either, and the
// run is INCOMPLETE. A skip the profile causes (a capability it does not
// declare) is a skip: the profile said so.
//
// Scenarios not judged are grouped by cause, as failures are. The gateway
// payments are counted across the run, so that the cause of a target that
// refused every one of them says so.

// checkGatewayRefused is the check of the cause of a scenario whose gateway
// payment was refused.
const checkGatewayRefused = "gateway payment refused"

// gatewayRefusal is the cause of a scenario whose gateway payment the
// target refused with status and message (a 422: "Payment cannot be
// processed yet").
func gatewayRefusal(status int, message string) verdict.Cause {
	answer := fmt.Sprintf("%d %q", status, message)
	return verdict.Cause{Operation: contract.OpCreatePayment, Check: checkGatewayRefused, Expected: answer,
		Headline: "a gateway payment was refused with " + answer}
}

// gatewayTally counts the gateway payments the scenarios of a run needed:
// those created, and those refused with 422 ("cannot be processed yet"),
// by answer. A refusal for what the request itself breaks (a 400 for a
// partner_trx_id too long) is the scenario's rule, not the target's say.
type gatewayTally struct {
	mu      sync.Mutex
	created int
	refused map[string]int // by status and message, as gatewayRefusal writes them
}

// tried counts a gateway payment a scenario needed.
func (g *gatewayTally) tried(pm *payment) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case pm.res != nil:
		g.created++
	case pm.ex != nil && pm.ex.Status == http.StatusUnprocessableEntity:
		env, _, err := contract.Decode(pm.ex.RespBody)
		if err != nil {
			return
		}
		if g.refused == nil {
			g.refused = map[string]int{}
		}
		g.refused[gatewayRefusal(pm.ex.Status, env.Message).Expected]++
	}
}

// settle rewrites the causes of the results whose gateway payment was
// refused with what the run saw of all of them: "every gateway payment was
// refused with 422 …" when none was created and all were refused alike,
// else how many of how many were.
func (g *gatewayTally) settle(results []verdict.Case) {
	g.mu.Lock()
	defer g.mu.Unlock()
	total := g.created
	for _, n := range g.refused {
		total += n
	}
	for i := range results {
		c := results[i].Cause
		if results[i].Status != verdict.StatusNotJudged || c == nil || c.Check != checkGatewayRefused {
			continue
		}
		settled := *c
		if g.created == 0 && len(g.refused) == 1 {
			settled.Headline = "every gateway payment was refused with " + c.Expected
		} else {
			settled.Headline = fmt.Sprintf("%s (%d of the run's %d gateway payments were)", c.Headline, g.refused[c.Expected], total)
		}
		results[i].Cause = &settled
	}
}
