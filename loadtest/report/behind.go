package report

import (
	"fmt"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
)

// fellBehind says how a paced run fell behind its schedule, and when; ""
// when it kept it (or had none to keep: a max-rate run). A run that fell
// behind measured a pile of requests waiting to be sent as much as the
// server: its latency is corrected for the wait, and its memory is the
// pile's. offSchedule is assess's finding that the run sent short of its
// schedule or too many sends late.
func fellBehind(h GeneratorHealth, offSchedule bool) string {
	g := &h
	stopped := g.InterruptedAfter > 0 || g.StoppedDryAfter > 0 || g.GatewayStopAfter > 0
	if g.Planned == 0 || !offSchedule && g.WorkerWaits == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("FELL BEHIND its schedule")
	if g.BehindFrom > 0 {
		fmt.Fprintf(&b, " from %s to %s", readable.Duration(g.BehindFrom), readable.Duration(g.BehindUntil))
	}
	fmt.Fprintf(&b, ": %s of %s sends more than %s late (worst %s)", readable.Thousands(h.Late), readable.Thousands(g.Sent),
		readable.Duration(g.LateAfter), readable.Duration(h.MaxLateness))
	if n := g.Planned - g.Sent; n > 0 && !stopped {
		fmt.Fprintf(&b, "; %s of %s scheduled requests not sent", readable.Thousands(n), readable.Thousands(g.Planned))
	}
	if g.WorkerWaits > 0 {
		fmt.Fprintf(&b, "; a request waited for one of the %s workers %s times", readable.Thousands(int64(g.MaxWorkers)), readable.Thousands(g.WorkerWaits))
	}
	return b.String()
}
