package steps

import (
	"fmt"
	"strconv"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/steps/report"
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

// CheckGateway is the check of the cause of a case a gateway's answer kept
// from being judged (GatewayCause).
const CheckGateway = "a gateway answered"

// GatewayCause is the cause of a case (a scenario, a generated property, a
// probe case) that a gateway's answer g kept from being judged: one per
// gateway status and page, whatever operation it answered.
func GatewayCause(g contract.Gateway) report.Cause {
	return report.Cause{Check: CheckGateway, Expected: strconv.Itoa(g.Status) + " " + g.Reason, Headline: g.Error()}
}

// gatewayPage ends the scenario whose request ex a gateway answered: not
// judged, by the gateway's cause, saying which request it answered (its
// status, Server header and title are the cause's).
func (s *scenario) gatewayPage(ex *exchange) error {
	g := *ex.Gateway
	return s.notJudgedBecause(GatewayCause(g), fmt.Sprintf("%s; it answered %s %s", g.Error(), ex.Method, ex.URL))
}

// gatewayStopped stops the run: its answers were mostly a gateway's (err,
// a *contract.GatewayError). The scenarios not yet started are not run,
// those under way are not run to their end, and the run is INCOMPLETE.
func (h *harness) gatewayStopped(err error) {
	h.stopRun(report.StopGateway, err, err)
}
