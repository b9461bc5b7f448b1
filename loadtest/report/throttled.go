package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/internal/readable"
)

// ClassThrottled is the class of the answers the target throttled (a 429,
// or a 503 with Retry-After): a class of its own in every report, never a
// contract violation nor a server error, and a failure only past
// --max-throttled-pct (the threshold metric throttled_pct).
const ClassThrottled = "throttled"

// throttledText says how many answers were throttled, by operation, and
// what that means: "1,234 answers (31.2%) were throttled (…): create 1,200,
// status 34; …".
func (rep *Report) throttledText() string {
	var ops []string
	for _, name := range slices.Sorted(maps.Keys(rep.Ops)) {
		if n := rep.Ops[name].Throttled; n > 0 {
			ops = append(ops, fmt.Sprintf("%s %s", name, readable.Thousands(n)))
		}
	}
	return fmt.Sprintf("%s answers (%.1f%%) were throttled (429, or 503 with Retry-After): %s; refused for the rate and not processed, "+
		"so never server errors nor contract violations (--max-throttled-pct makes them fail the run)",
		readable.Thousands(rep.Throttled), rep.ThrottledPct, strings.Join(ops, ", "))
}

// throttledCaveat is what a pass says of a throttled run: it measured the
// target's rate limit as much as the API; "" when nothing was throttled.
func (rep *Report) throttledCaveat() string {
	if rep.Throttled == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%% of requests were throttled (429, or 503 with Retry-After): the offered rate was above the target's limit, "+
		"so this run measured the limit as much as the API (--max-throttled-pct makes throttling fail the run)", rep.ThrottledPct)
}

// addThrottled adds the line of the throttled answers, with examples from
// the error set.
func (l *classLineList) addThrottled(rep *Report) {
	var ex []string
	for _, e := range rep.Errors {
		if strings.HasPrefix(e.Error, "throttled: ") && len(ex) < exampleCount {
			ex = append(ex, e.Example)
		}
	}
	l.line(ClassThrottled, rep.Throttled, ex, "%s", rep.throttledText())
}
