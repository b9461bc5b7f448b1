// Package live exposes a load run to Prometheus while it runs, on
// /metrics (OpenMetrics text): vegeta's own metrics through its lib/prom
// package (request_seconds, request_bytes_in, request_bytes_out, labelled
// method, url and status), so that dashboards made for vegeta work, and
// what only this tester knows: the answers as expected, allowed or
// unexpected by operation and status code, the contract violations, the
// uncertain requests, the corrected latency, the generator's self-check
// (requests in flight, late sends), the reconciliation's progress and the
// thresholds' state.
//
// Every label is of low cardinality: an operation, a status code, a class,
// a threshold's expression; never an id. vegeta's url label is the
// request's URL without its query, where this API puts the ids (the
// document's paths have no parameters).
//
// The tester calls Observe where its tally counts each result, with the
// tally, and nothing else of the package reads the run: the metrics are a
// view of the record, as vegeta's reporters are, and the thresholds' live
// state is the report's evaluation of the tally's counts so far.
package live

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	vegetaprom "github.com/tsenart/vegeta/v12/lib/prom"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// The classes of an answer (the label class of loadtest_answers_total):
// expected by the scenario; allowed by the document but not expected (a
// documented refusal, a throttled answer); neither.
const (
	ClassExpected   = "expected"
	ClassAllowed    = "allowed"
	ClassUnexpected = "unexpected"
)

// LatencyBuckets are the upper bounds, in seconds, of the corrected
// latency histogram: finer than vegeta's (prometheus.DefBuckets, which
// start at 5 ms) below 5 ms, where a server on a near network answers.
var LatencyBuckets = []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Metrics holds a run's metrics in their own registry.
type Metrics struct {
	reg       *prometheus.Registry
	vegeta    *vegetaprom.Metrics
	lateAfter time.Duration

	answers    *prometheus.CounterVec   // operation, class, code
	corrected  *prometheus.HistogramVec // operation
	violations *prometheus.CounterVec   // operation
	uncertain  *prometheus.CounterVec   // operation
	undeliv    *prometheus.CounterVec   // operation
	throttled  *prometheus.CounterVec   // operation
	gateway    *prometheus.CounterVec   // operation
	late       prometheus.Counter
	lateness   prometheus.Histogram
	toLookUp   prometheus.Gauge
	// inFlight and lookedUp are read at each scrape.
	inFlight, lookedUp atomic.Pointer[func() int64]

	// byKey caches the children of one operation and code, so that
	// Observe looks the labels up once per pair rather than per result.
	byKey map[key]*children // only Observe's goroutine uses it

	thresholds *thresholdCollector
}

type key struct {
	op   string
	code uint16
}

type children struct {
	expected, allowed, unexpected prometheus.Counter
	corrected                     prometheus.Observer
	violations, uncertain         prometheus.Counter
	undeliv, throttled, gateway   prometheus.Counter
}

// New returns the metrics of a run that counts a send more than lateAfter
// late as late and is held to thresholds, registered with the Go runtime's
// and the process's collectors (the memory of a long soak).
func New(lateAfter time.Duration, thresholds []report.Threshold) (*Metrics, error) {
	m := &Metrics{reg: prometheus.NewRegistry(), vegeta: vegetaprom.NewMetrics(), lateAfter: lateAfter, byKey: map[key]*children{}}
	op := []string{"operation"}
	m.answers = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_answers_total",
		Help: "Requests by operation, class (expected, allowed: a documented refusal or a throttled answer, unexpected) and HTTP status code (0: no answer)."},
		[]string{"operation", "class", "code"})
	m.corrected = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "loadtest_corrected_latency_seconds",
		Help: "Latency from the scheduled send to the end of the answer (corrected for coordinated omission), by operation.", Buckets: LatencyBuckets}, op)
	m.violations = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_contract_violations_total",
		Help: "Answers that broke the API document, by operation (report.json names the rules)."}, op)
	m.uncertain = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_uncertain_requests_total",
		Help: "Requests that may have reached the server but got no answer (timeout, broken connection), by operation."}, op)
	m.undeliv = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_not_delivered_requests_total",
		Help: "Requests that never reached the server (no connection could be made), by operation."}, op)
	m.throttled = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_throttled_answers_total",
		Help: "Answers refused for the rate (429, or 503 with Retry-After), by operation."}, op)
	m.gateway = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadtest_gateway_answers_total",
		Help: "Answers a gateway in front of the target gave instead of the API (an HTML page, or text with a proxy's Server header), by operation."}, op)
	m.late = prometheus.NewCounter(prometheus.CounterOpts{Name: "loadtest_late_sends_total",
		Help: "Sends more than --late after their scheduled time: the generator fell behind its schedule."})
	m.lateness = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "loadtest_send_lateness_seconds",
		Help: "How late each send was against its schedule.", Buckets: LatencyBuckets})
	m.toLookUp = prometheus.NewGauge(prometheus.GaugeOpts{Name: "loadtest_reconciliation_to_look_up",
		Help: "Created payments the reconciliation after the attack looks up."})
	m.thresholds = &thresholdCollector{given: thresholds}
	if err := m.vegeta.Register(m.reg); err != nil {
		return nil, err
	}
	for _, c := range []prometheus.Collector{m.answers, m.corrected, m.violations, m.uncertain, m.undeliv, m.throttled, m.gateway,
		m.late, m.lateness, m.toLookUp, m.thresholds,
		reading(&m.inFlight, "loadtest_in_flight_requests", "Requests sent and not yet answered."),
		reading(&m.lookedUp, "loadtest_reconciliation_looked_up", "Created payments the reconciliation has looked up so far."),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := m.reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Registry is the registry the metrics are in.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Observe counts result r, which tally t has just counted. One goroutine
// calls it (the collector's, where the tally counts r); a scrape may run
// beside it, and reads the tally's counts as Observe last saw them.
func (m *Metrics) Observe(r *record.Result, t *record.Tally) {
	vr := r.Result
	// vegeta's labels: the URL without the ids of its query; no error
	// message (lib/prom v12.12.0 labels request_fail_count with the raw
	// error, whose text carries addresses, and never increments it:
	// loadtest_answers_total{code="0"} counts what failed).
	if i := strings.IndexByte(vr.URL, '?'); i >= 0 {
		vr.URL = vr.URL[:i]
	}
	vr.Error, vr.Body, vr.Headers = "", nil, nil
	m.vegeta.Observe(&vr)

	c := m.children(r.Op, r.Code)
	switch {
	case r.Expected:
		c.expected.Inc()
	case r.Allowed:
		c.allowed.Inc()
	default:
		c.unexpected.Inc()
	}
	c.corrected.Observe(r.Corrected().Seconds())
	lateness := r.Timestamp.Sub(r.Scheduled)
	m.lateness.Observe(lateness.Seconds())
	if lateness > m.lateAfter {
		m.late.Inc()
	}
	if r.Violation != "" {
		c.violations.Inc()
	}
	if r.Uncertain {
		c.uncertain.Inc()
	}
	if r.NotDelivered {
		c.undeliv.Inc()
	}
	if r.Throttled {
		c.throttled.Inc()
	}
	if r.Gateway {
		c.gateway.Inc()
	}
	m.thresholds.counted(t)
}

func (m *Metrics) children(op string, code uint16) *children {
	k := key{op, code}
	if c, ok := m.byKey[k]; ok {
		return c
	}
	s := strconv.Itoa(int(code))
	c := &children{
		expected:   m.answers.WithLabelValues(op, ClassExpected, s),
		allowed:    m.answers.WithLabelValues(op, ClassAllowed, s),
		unexpected: m.answers.WithLabelValues(op, ClassUnexpected, s),
		corrected:  m.corrected.WithLabelValues(op),
		violations: m.violations.WithLabelValues(op),
		uncertain:  m.uncertain.WithLabelValues(op),
		undeliv:    m.undeliv.WithLabelValues(op),
		throttled:  m.throttled.WithLabelValues(op),
		gateway:    m.gateway.WithLabelValues(op),
	}
	m.byKey[k] = c
	return c
}

// InFlight makes the gauge loadtest_in_flight_requests read n at each
// scrape (the engine's count of requests sent and not yet answered).
func (m *Metrics) InFlight(n func() int64) { m.inFlight.Store(&n) }

// Reconciling makes the reconciliation's progress read at each scrape:
// lookedUp() of toLookUp created payments looked up after the attack.
func (m *Metrics) Reconciling(lookedUp func() int64, toLookUp int64) {
	m.lookedUp.Store(&lookedUp)
	m.toLookUp.Set(float64(toLookUp))
}

// reading is a gauge that reads *f at each scrape (0 while f is nil).
func reading(f *atomic.Pointer[func() int64], name, help string) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		if n := f.Load(); n != nil {
			return float64((*n)())
		}
		return 0
	})
}

// Judged sets the thresholds' state to the report's verdict on them,
// which replaces the live estimate (and adds the thresholds only the
// report measures: latencies, reconciliation, default ones).
func (m *Metrics) Judged(results []report.ThresholdResult) {
	m.thresholds.mu.Lock()
	defer m.thresholds.mu.Unlock()
	m.thresholds.judged = append([]report.ThresholdResult(nil), results...)
}
