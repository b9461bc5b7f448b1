package live_test

import (
	"context"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
)

// lateAfter is the scripted run's --late.
const lateAfter = 5 * time.Millisecond

// scripted is result i of a scripted run sent at t: the operations in
// turn, latencies spread log-uniformly from 0.3 ms to 400 ms in a fixed
// shuffled order, some refusals, server errors, unanswered requests,
// contract violations and late sends, and the ids in the query as the
// status look-ups carry them.
func scripted(i int, t time.Time) record.Result {
	ops := []string{record.OpCreate, record.OpStatus, record.OpList}
	op := ops[i%len(ops)]
	lat := time.Duration(300e3 * math.Pow(400e6/300e3, float64((i*7919)%1000)/999))
	lateness := 100 * time.Microsecond
	if i%13 == 0 {
		lateness = 20 * time.Millisecond
	}
	r := record.Result{Result: vegeta.Result{Method: "GET", Code: 200, Latency: lat, BytesIn: 300, BytesOut: 80,
		URL: "http://127.0.0.1:1/client/v2/payment/status?partner_trx_id=trx-" + strconv.Itoa(i), Timestamp: t.Add(lateness)},
		Scheduled: t, Op: op, Expected: true, Allowed: true}
	switch {
	case i%211 == 5:
		r.Code, r.Error, r.Expected, r.Allowed, r.Uncertain = 0, "Get http://127.0.0.1:1/x?id=1: timeout", false, false, true
	case i%101 == 3:
		r.Code, r.Expected, r.Allowed = 500, false, false
	case i%97 == 7:
		r.Expected, r.Allowed, r.Violation = false, false, op+": HTTP 200: /data/amount: missing"
	case i%17 == 1:
		r.Code, r.Expected = 422, false
	case i%53 == 2:
		r.Code, r.Expected, r.Throttled = 429, false, true
	case i%59 == 31:
		r.Code, r.Expected, r.Allowed, r.Gateway = 503, false, false, true
	}
	return r
}

// script is the whole of a scripted run's figures, as its report would
// give them.
type script struct {
	requests, expected, allowed, uncertain, violations, late, throttled, gateway int
	raw, corrected                                                               []time.Duration
}

func (s *script) add(r *record.Result) {
	s.requests++
	for _, c := range []struct {
		n  *int
		ok bool
	}{{&s.expected, r.Expected}, {&s.allowed, r.Allowed}, {&s.uncertain, r.Uncertain},
		{&s.violations, r.Violation != ""}, {&s.late, r.Timestamp.Sub(r.Scheduled) > lateAfter}, {&s.throttled, r.Throttled}, {&s.gateway, r.Gateway}} {
		if c.ok {
			*c.n++
		}
	}
	s.raw = append(s.raw, r.Latency)
	s.corrected = append(s.corrected, r.Corrected())
}

// quantile is the nearest-rank quantile q of ds, as the report computes
// it (within its HDR histogram's 0.1%).
func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
}

// scriptedRun is a run of scripted results observed at a steady pace
// while its metrics are served, until it ends: then the reconciliation
// looks up every created payment and the report judges the thresholds.
type scriptedRun struct {
	addr     string
	m        *live.Metrics
	duration time.Duration
	observe  func(*record.Result) // counts a result, then shows it to m
	done     chan script
	inFlight *atomic.Int64
	judged   []report.ThresholdResult // the report's verdict on the thresholds
}

// scriptedRate is the scripted run's results per second.
const scriptedRate = 400

func runScripted(t *testing.T, duration time.Duration) *scriptedRun {
	t.Helper()
	m, err := live.New(lateAfter, thresholds(t, "success>=90", "late_sends<=10"))
	require.NoError(t, err)
	var inFlight atomic.Int64
	m.InFlight(inFlight.Load)
	srv, err := live.Serve(context.Background(), "127.0.0.1:0", m)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, srv.Close(ctx))
	})
	return &scriptedRun{addr: srv.Addr(), m: m, observe: observer(t, m), duration: duration, done: make(chan script, 1), inFlight: &inFlight,
		judged: []report.ThresholdResult{{Threshold: thresholds(t, "p99<=1s")[0], Actual: 380, Passed: true}}}
}

func (run *scriptedRun) start() {
	go func() {
		var s script
		began := time.Now()
		n := int(run.duration.Seconds() * scriptedRate)
		for i := range n {
			at := began.Add(time.Duration(i) * time.Second / scriptedRate)
			time.Sleep(time.Until(at))
			run.inFlight.Store(int64(i % 17))
			r := scripted(i, at)
			run.observe(&r)
			s.add(&r)
		}
		run.inFlight.Store(0)
		created := int64((n + 2) / 3)
		var lookedUp atomic.Int64
		run.m.Reconciling(lookedUp.Load, created)
		for range created {
			lookedUp.Add(1)
		}
		run.m.Judged(run.judged)
		run.done <- s
	}()
}

// wait waits for the end of the run and returns its figures.
func (run *scriptedRun) wait() script { return <-run.done }
