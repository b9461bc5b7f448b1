package steps

import (
	"fmt"

	"github.com/partnercommerce/conformance/verdict"
)

// A gateway in front of the API (a reverse proxy, a load balancer, a
// firewall) may answer in its place with a page of its own
// (contract.GatewayAnswer): nginx's 503 when its limit_req refuses a
// request, its 400 to a client without the certificate it wants. Such an
// answer is neither the API's pass nor its failure: the scenario that got
// it is not judged, by the cause "a gateway answered …" (one cause, whatever
// operation it answered, shared by every judge of the run), and the run is
// INCOMPLETE. The run's gate counts the gateway's answers
// (throttle.Gate.Gateway): once they are most of the run's answers, the
// run stops, INCOMPLETE; the scenarios not started are not run, and the
// judges after them are not asked.

// gatewayPage ends the scenario whose request ex a gateway answered: not
// judged, by the gateway's cause, saying which request it answered (its
// status, Server header and title are the cause's).
func (s *scenario) gatewayPage(ex *exchange) error {
	g := *ex.Gateway
	return s.notJudgedBecause(verdict.GatewayCause(g), fmt.Sprintf("%s; it answered %s %s", g.Error(), ex.Method, ex.URL))
}

// gatewayStopped stops the run: its answers were mostly a gateway's (err,
// a *contract.GatewayError). The scenarios not yet started are not run,
// those under way are not run to their end, and the run is INCOMPLETE.
func (h *harness) gatewayStopped(err error) {
	h.stopRun(verdict.StopGateway, err, err)
}
