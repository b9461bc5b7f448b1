package live

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// thresholdCollector publishes the thresholds' state at each scrape:
// during the run, the report's evaluation (report.Threshold.Evaluate) of
// those whose metric the tally's counts measure (report.CountValues: the
// shares and counts of answers, late sends), as Observe last saw them;
// once the report has judged them (Metrics.Judged), its verdict on every
// one.
type thresholdCollector struct {
	given []report.Threshold

	mu     sync.Mutex
	counts tallyCounts              // as Observe last saw them
	judged []report.ThresholdResult // nil until the report
}

// tallyCounts are the counts of a tally that the thresholds read.
type tallyCounts struct {
	sum              record.OpStats
	violations, late int
}

// counted takes the counts of tally t, which the collector's goroutine
// has just added a result to, for the next scrape.
func (tc *thresholdCollector) counted(t *record.Tally) {
	if len(tc.given) == 0 {
		return
	}
	c := tallyCounts{sum: t.Totals(), violations: t.Violations, late: t.Late}
	tc.mu.Lock()
	tc.counts = c
	tc.mu.Unlock()
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
	judged, c := tc.judged, tc.counts
	tc.mu.Unlock()
	if judged == nil {
		ch <- prometheus.MustNewConstMetric(thresholdsJudged, prometheus.GaugeValue, 0)
		if c.sum.Requests > 0 { // nothing is measured before the first result
			values := report.CountValues(c.sum, c.violations, c.late, c.sum.Requests)
			for _, th := range tc.given {
				if _, ok := values[th.Metric]; ok {
					judged = append(judged, th.Evaluate(values))
				}
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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
