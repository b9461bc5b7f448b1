package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Threshold is a pass/fail condition on one metric of a report, in the
// spirit of k6's thresholds: "p99<=50ms", "success>=99.9", "duplicate_debits<=0".
type Threshold struct {
	Metric string  `json:"metric"`
	Op     string  `json:"op"` // "<=" or ">="
	Value  float64 `json:"value"`
	Expr   string  `json:"expr"`
}

// metricUnits tells how each metric's value is read: "ms" (a duration,
// compared in milliseconds), "%" (a percentage) or "" (a count).
var metricUnits = map[string]string{
	"p50": "ms", "p90": "ms", "p95": "ms", "p99": "ms", "p999": "ms", "max": "ms", "mean": "ms",
	"raw_p50": "ms", "raw_p90": "ms", "raw_p95": "ms", "raw_p99": "ms", "raw_p999": "ms", "raw_max": "ms", "raw_mean": "ms",
	"success":              "%", // expected responses / requests
	"allowed":              "%", // responses the document allows (expected or a documented refusal) / requests
	"server_errors":        "%", // 5xx and unanswered requests / requests
	"uncertain_pct":        "%", // requests without an answer / requests
	"throttled_pct":        "%", // throttled answers (429, or 503 with Retry-After) / requests
	"late_sends":           "%", // sends later than --late / sends
	"achieved_rate":        "%", // sent / planned
	"errors":               "",  // unexpected responses
	"contract_violations":  "",
	"duplicate_debits":     "",
	"uncertain":            "", // requests without an answer
	"invariant_violations": "",
}

// ThresholdMetrics lists the metric names a threshold may use.
func ThresholdMetrics() []string {
	var out []string
	for k := range metricUnits {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseThreshold parses "metric<=value" or "metric>=value" ("<" and ">"
// are read as "<=" and ">="). Latency values take a Go duration ("50ms",
// "1.5s"); percentages may end in "%".
func ParseThreshold(expr string) (Threshold, error) {
	s := strings.ReplaceAll(expr, " ", "")
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return Threshold{}, fmt.Errorf("threshold %q: want metric<=value or metric>=value", expr)
	}
	th := Threshold{Metric: s[:i], Expr: expr}
	rest := s[i:]
	switch {
	case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, ">="):
		th.Op, rest = rest[:2], rest[2:]
	default:
		th.Op, rest = rest[:1]+"=", rest[1:]
	}
	unit, ok := metricUnits[th.Metric]
	if !ok {
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q (want one of %s)", expr, th.Metric, strings.Join(ThresholdMetrics(), ", "))
	}
	v, err := parseValue(unit, rest)
	if err != nil {
		return Threshold{}, fmt.Errorf("threshold %q: %w", expr, err)
	}
	th.Value = v
	return th, nil
}

func parseValue(unit, s string) (float64, error) {
	switch unit {
	case "ms":
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%q is not a duration such as 50ms", s)
		}
		return float64(d) / float64(time.Millisecond), nil
	case "%":
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return 0, fmt.Errorf("%q is not a percentage between 0 and 100", s)
		}
		return v, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q is not a non-negative number", s)
	}
	return v, nil
}

// MaxThreshold and MinThreshold build the thresholds behind flags such as
// --max-p99 50ms and --min-success 99.9.
func MaxThreshold(metric, value string) (Threshold, error) {
	return ParseThreshold(metric + "<=" + value)
}

// MinThreshold is the ">=" counterpart of MaxThreshold.
func MinThreshold(metric, value string) (Threshold, error) {
	return ParseThreshold(metric + ">=" + value)
}

// ThresholdResult is the verdict of one threshold on a report.
type ThresholdResult struct {
	Threshold
	Actual float64 `json:"actual"`
	Passed bool    `json:"passed"`
	// NotMeasured is true when the run did not measure the metric (for
	// example duplicate_debits without reconciliation): the threshold fails.
	NotMeasured bool `json:"not_measured,omitempty"`
}

// Evaluate checks th against metric values: a report's, or the counts
// the live metrics read during a run (CountValues). A metric missing from
// values was not measured, and fails the threshold.
func (th Threshold) Evaluate(values map[string]float64) ThresholdResult {
	v, measured := values[th.Metric]
	if !measured {
		return ThresholdResult{Threshold: th, NotMeasured: true}
	}
	ok := v <= th.Value
	if th.Op == ">=" {
		ok = v >= th.Value
	}
	return ThresholdResult{Threshold: th, Actual: v, Passed: ok}
}

// String formats a result as "p99<=50ms: 12.3 ✓".
func (r ThresholdResult) String() string {
	mark := "FAIL"
	if r.Passed {
		mark = "ok"
	}
	if r.NotMeasured {
		return fmt.Sprintf("%-4s %s (not measured)", mark, r.Expr)
	}
	unit := metricUnits[r.Metric]
	return fmt.Sprintf("%-4s %s (actual %.3f%s)", mark, r.Expr, r.Actual, unit)
}

// failure words a failed threshold for the report: the expression, the
// metric, the measured value and the scenario that produced it.
func (r ThresholdResult) failure(scenario string) string {
	if r.NotMeasured {
		return fmt.Sprintf("threshold %s: %s was not measured in scenario %s", r.Expr, r.Metric, scenario)
	}
	s := fmt.Sprintf("threshold %s: %s measured %.3f%s in scenario %s", r.Expr, r.Metric, r.Actual, metricUnits[r.Metric], scenario)
	switch r.Metric {
	case "uncertain", "uncertain_pct":
		s += " (requests the server did not answer within the timeout)"
	case "server_errors":
		s += " (5xx answers and requests the server did not answer)"
	}
	return s
}
