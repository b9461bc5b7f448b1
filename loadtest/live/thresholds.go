package live

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partnercommerce/conformance/loadtest/report"
)

// thresholdCollector publishes the thresholds' state at each scrape:
// during the run, the live estimate of those whose metric the counts
// measure (the shares and counts of answers, late sends); once the report
// has judged them (Metrics.Judged), its verdict on every one.
type thresholdCollector struct {
	given  []report.Threshold
	counts *counts

	mu     sync.Mutex
	judged []report.ThresholdResult // nil until the report
}

var (
	thresholdPassing = prometheus.NewDesc("loadtest_threshold_passing",
		"1 while the threshold holds, 0 when it fails (absent while its metric is not measured yet: latencies and reconciliation are judged by the report).",
		[]string{"threshold"}, nil)
	thresholdActual = prometheus.NewDesc("loadtest_threshold_actual",
		"The threshold's metric as measured (milliseconds, percent or a count, as in the threshold).", []string{"threshold"}, nil)
	thresholdsJudged = prometheus.NewDesc("loadtest_thresholds_judged",
		"1 once the report has judged the thresholds (its verdict replaces the live estimate), 0 during the run.", nil, nil)
)

func (tc *thresholdCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- thresholdPassing
	ch <- thresholdActual
	ch <- thresholdsJudged
}

func (tc *thresholdCollector) Collect(ch chan<- prometheus.Metric) {
	tc.mu.Lock()
	judged := tc.judged
	tc.mu.Unlock()
	if judged == nil {
		ch <- prometheus.MustNewConstMetric(thresholdsJudged, prometheus.GaugeValue, 0)
		values := tc.counts.values()
		for _, th := range tc.given {
			if v, ok := values[th.Metric]; ok {
				judged = append(judged, report.ThresholdResult{Threshold: th, Actual: v, Passed: holds(th, v)})
			}
		}
	} else {
		ch <- prometheus.MustNewConstMetric(thresholdsJudged, prometheus.GaugeValue, 1)
	}
	for _, r := range judged {
		if r.NotMeasured {
			ch <- prometheus.MustNewConstMetric(thresholdPassing, prometheus.GaugeValue, 0, r.Expr)
			continue
		}
		ch <- prometheus.MustNewConstMetric(thresholdPassing, prometheus.GaugeValue, b2f(r.Passed), r.Expr)
		ch <- prometheus.MustNewConstMetric(thresholdActual, prometheus.GaugeValue, r.Actual, r.Expr)
	}
}

// holds is the report's comparison (report's Threshold.evaluate, which is
// unexported and takes the report's values).
func holds(th report.Threshold, v float64) bool {
	if th.Op == ">=" {
		return v >= th.Value
	}
	return v <= th.Value
}

// values are the threshold metrics the counts measure, named and computed
// as report.json's (Report.values): shares in percent of the requests,
// counts of requests.
func (c *counts) values() map[string]float64 {
	n := c.requests.Load()
	if n == 0 {
		return nil
	}
	pct := func(x int64) float64 { return 100 * float64(x) / float64(n) }
	return map[string]float64{
		"success":             pct(c.expected.Load()),
		"allowed":             pct(c.allowed.Load()),
		"uncertain_pct":       pct(c.uncertain.Load()),
		"throttled_pct":       pct(c.throttled.Load()),
		"late_sends":          pct(c.late.Load()),
		"errors":              float64(n - c.expected.Load()),
		"contract_violations": float64(c.violations.Load()),
		"uncertain":           float64(c.uncertain.Load()),
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
