package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/partnercommerce/conformance/reference"
)

// Metrics are the reference server's metrics for Prometheus: its requests
// by operation (openapi.yaml's operation id; "other" for a path or method
// it does not serve) and status code, their duration by operation, and,
// with a state directory, the journal's group commits (their write and
// fdatasync, and how many records each made durable). Every label is of
// low cardinality: never a path as the client sent it, nor an id.
type Metrics struct {
	reg           *prometheus.Registry
	routes        map[string]map[string]route
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	commitSeconds prometheus.Histogram
	commitRecords prometheus.Histogram
}

// opOther labels the requests no route serves.
const opOther = "other"

// NewMetrics returns the metrics, registered with the Go runtime's and the
// process's collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), routes: routes()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "reference_requests_total",
		Help: "Requests answered, by operation (openapi.yaml's operation id, or other) and HTTP status code."}, []string{"operation", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "reference_request_duration_seconds",
		Help:    "Time from a request's headers to its answer, by operation.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1}}, []string{"operation"})
	m.commitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "reference_journal_commit_seconds",
		Help:    "One group commit of the journal (--state): the write of its frame and its fdatasync.",
		Buckets: []float64{.0001, .00025, .0005, .001, .002, .004, .008, .016, .032, .064, .128, .256, .512, 1}})
	m.commitRecords = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "reference_journal_commit_records",
		Help:    "The records one group commit made durable: the requests it answered (a payment may write more than one).",
		Buckets: prometheus.ExponentialBuckets(1, 2, 12)})
	m.reg.MustRegister(m.requests, m.duration, m.commitSeconds, m.commitRecords,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Commit counts a commit of the journal: the store's observer
// (reference.WithCommitObserver).
func (m *Metrics) Commit(c reference.Commit) {
	m.commitSeconds.Observe(c.Took.Seconds())
	m.commitRecords.Observe(float64(c.Records))
}

// Count wraps next, counting every request it answers.
func (m *Metrics) Count(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := statusWriters.Get().(*statusWriter)
		sw.ResponseWriter, sw.status = w, 0
		defer func() {
			op := opOther
			if rt, ok := m.routes[r.URL.Path][r.Method]; ok {
				op = rt.op
			}
			code := sw.status
			if code == 0 { // nothing written: net/http answers 200
				code = http.StatusOK
			}
			m.requests.WithLabelValues(op, strconv.Itoa(code)).Inc()
			m.duration.WithLabelValues(op).Observe(time.Since(start).Seconds())
			sw.ResponseWriter = nil
			statusWriters.Put(sw)
		}()
		next.ServeHTTP(sw, r)
	})
}

// Handler serves the metrics in the Prometheus text formats (OpenMetrics
// when the scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true})
}
