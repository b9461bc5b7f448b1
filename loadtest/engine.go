package loadtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// engine runs the attack of one Tester.Run.
type engine struct {
	cfg    *config
	cl     *client
	plan   *planner
	codes  map[string]map[int]bool
	hist   *record.History        // nil without the history check
	deadAt atomic.Pointer[string] // the error that stopped the look-ups: the target stopped answering
	// onBegin, when set, is called as the attack begins (the nemesis
	// starts its schedule there).
	onBegin func(began time.Time)

	reqCtx context.Context // parent of every request; cancelled at the drain timeout

	sent, done, late, workerWaits, connWaits atomic.Int64
	inFlight, peakInFlight, maxLate          atomic.Int64
	unexpected, violations                   atomic.Int64
	workers                                  int64
	planned                                  int64
	interrupted                              time.Duration // when the attack was interrupted; 0 if it was not
	stoppedDry                               time.Duration // when the attack stopped because an account ran dry (--when-dry stop)
	abandoned                                int64
	began                                    time.Time     // when the attack began
	sending                                  time.Duration // from the start to the end of the sending loop

	rec *record.Recorder // what the collector gathers, counted and streamed or kept
	// order numbers each operation's sends (Result.order), for the
	// results file; one counter per operation, set before the attack.
	order map[string]*atomic.Uint64
}

func (e *engine) generator() record.Generator {
	g := record.Generator{
		Planned: e.planned, Sent: e.sent.Load(), Late: e.late.Load(), LateAfter: e.cfg.lateAfter,
		MaxLateness: time.Duration(e.maxLate.Load()), WorkerWaits: e.workerWaits.Load(),
		ConnWaits: e.connWaits.Load(), PeakWorkers: e.workers, PeakInFlight: e.peakInFlight.Load(),
		MaxWorkers: e.cfg.maxWorkers, MaxConnections: e.cfg.maxConns, Duration: e.cfg.load.Duration,
		Abandoned: e.abandoned, Sending: e.sending,
	}
	g.InterruptedAfter, g.StoppedDryAfter = e.interrupted, e.stoppedDry
	return g
}

// dispatched is a hit handed to a worker: hit number n, whose job the
// worker builds (so that the pacing goroutine only paces), or a job already
// built (a request of an idempotency wave, built once per wave).
type dispatched struct {
	n         uint64
	built     *job
	scheduled time.Time
}

// attack paces the jobs, runs them on a bounded pool of workers, drains,
// and collects the results.
func (e *engine) attack(ctx context.Context) {
	c := e.cfg
	perTick := int64(c.sc.perHit(c))
	// Rates are requests per second; the schedule paces hits of perTick
	// requests each. validate has checked the divided profile.
	pacer, _ := c.load.Divided(int(perTick)).Pacer()
	unbounded := c.load.Unbounded()

	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	e.reqCtx = reqCtx

	results := make(chan record.HitResult, 4096)
	e.order = map[string]*atomic.Uint64{}
	for _, op := range []string{"", record.OpCreate, record.OpStatus, record.OpList, record.OpSync, record.OpProfile, record.OpMethods, record.OpProvision} {
		e.order[op] = &atomic.Uint64{}
	}
	// The collector's next cycle must scan what the recorder allocated (it
	// holds pointers): run it now, before the schedule starts, rather than
	// in its first tens of milliseconds, where its assists made sends late
	// (44 ms of assist CPU at 5,000/s for 5 s, 36 sends late in the first
	// 100 ms).
	runtime.GC()
	jobs := make(chan dispatched)
	var wg sync.WaitGroup
	collected := make(chan struct{})
	began := time.Now()
	e.began = began
	e.rec.Tally.Timeline.Start = began
	if e.onBegin != nil {
		e.onBegin(began)
	}
	go e.collect(results, began, collected)
	stopReads := e.startReads()

	spawn := func() {
		e.workers++
		client := int(e.workers) - 1
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf [1]job
			for d := range jobs {
				var j job
				if d.built != nil {
					j = *d.built
				} else {
					j = c.sc.jobs(e.plan, d.n, buf[:0])[0]
				}
				e.send(j, d.scheduled, client, results)
			}
		}()
	}
	for range cmp.Or(min(c.maxWorkers, 8), 8) {
		spawn()
	}
	// A paced hit due within the duration may still be sent a little late;
	// past this grace the generator stops, so the run stays bounded. A
	// max-rate run has no schedule to be late on: it stops at the duration,
	// so that sends ÷ duration is the rate it achieved.
	deadline := began.Add(c.load.Duration + min(time.Second, c.load.Duration/10))
	var ended <-chan time.Time // fires at the duration of a max-rate run; nil otherwise
	if unbounded {
		deadline = began.Add(c.load.Duration)
		end := time.NewTimer(time.Until(deadline))
		defer end.Stop()
		ended = end.C
	}
	send := func(d dispatched) bool {
		select {
		case jobs <- d:
			return true
		default:
		}
		// No worker is waiting: start one, as vegeta does, unless at the
		// cap. Waiting for a worker on its way back instead would not keep
		// a starved CPU from piling up workers, and makes more sends late
		// at 7,500/s.
		if c.maxWorkers == 0 || e.workers < int64(c.maxWorkers) {
			spawn()
		} else {
			e.workerWaits.Add(1)
		}
		select {
		case jobs <- d:
			return true
		case <-ended:
			return false
		case <-ctx.Done():
			return false
		}
	}

	// The loop counts the hits the schedule puts within the duration; when
	// it stops early, the rest of the schedule is counted after the attack.
	s := pacing.Schedule{P: pacer}
	var planned int64
	walked := false // the schedule was walked to its end
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
loop:
	for n := uint64(0); ; n++ {
		due, ok := s.Next()
		if !ok || due > c.load.Duration {
			walked = true
			break
		}
		planned++
		if ctx.Err() != nil || e.ranDry() {
			break
		}
		at := began.Add(due)
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				break loop
			case <-e.plan.dry:
				break loop
			}
		}
		now := time.Now()
		if now.After(deadline) {
			break // bounded: whatever is not sent by now is not sent
		}
		if unbounded {
			at = now
		}
		if perTick == 1 {
			if !send(dispatched{n: n, scheduled: at}) {
				break loop
			}
			continue
		}
		wave := c.sc.jobs(e.plan, n, make([]job, 0, perTick))
		for i := range wave {
			if !send(dispatched{built: &wave[i], scheduled: at}) {
				break loop
			}
		}
	}
	e.sending = time.Since(began)
	close(jobs)
	stopReads()
	if ctx.Err() != nil {
		e.interrupted = time.Since(began)
	} else if e.ranDry() {
		e.stoppedDry = time.Since(began)
	}
	if !unbounded { // a max-rate schedule never ends, and plans nothing
		if !walked {
			planned += s.Remaining(c.load.Duration)
		}
		e.planned = planned * perTick
	}

	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	drain := time.NewTimer(c.drain)
	defer drain.Stop()
	select {
	case <-finished:
	case <-drain.C:
		e.abandoned = e.inFlight.Load()
		cancelReqs()
		<-finished
	}
	close(results)
	<-collected
}

// ranDry reports whether an account ran dry under --when-dry stop.
func (e *engine) ranDry() bool {
	select {
	case <-e.plan.dry:
		return true
	default:
		return false
	}
}

// hit sends job d, scheduled at scheduled, and checks its response.
func (e *engine) hit(d job, scheduled time.Time) record.Result {
	sent := time.Now()
	counter := e.order[d.call.op]
	if counter == nil { // an operation the engine did not number: share one counter
		counter = e.order[""]
	}
	order := counter.Add(1) - 1
	e.sent.Add(1)
	if late := sent.Sub(scheduled); late > e.cfg.lateAfter {
		e.late.Add(1)
		storeMax(&e.maxLate, int64(late))
	}
	in := e.inFlight.Add(1)
	if e.cfg.maxConns > 0 && in > int64(e.cfg.maxConns) {
		e.connWaits.Add(1)
	}
	storeMax(&e.peakInFlight, in)
	ctx, cancel := context.WithTimeout(e.reqCtx, e.timeoutOf(d))
	resp := e.cl.do(ctx, d.call)
	defer resp.release()
	cancel()
	e.inFlight.Add(-1)
	end := time.Now()

	if d.pay != nil {
		d.pay.At = sent
	}
	r := record.Result{
		Result: vegeta.Result{
			Attack: d.call.op, Seq: d.seq, Code: uint16(resp.code), Timestamp: sent,
			Latency: end.Sub(sent), BytesOut: uint64(len(d.call.body)), BytesIn: resp.bytes,
			Method: d.call.method, URL: d.call.url,
		},
		Scheduled: scheduled, Op: d.call.op, Order: order,
	}
	if resp.err != nil {
		// No answer, or one too long to read: what the server did with a
		// payment is not known. An answer cut at the size limit keeps its
		// status code, but is not an answer the checks can read. A request
		// that never had a connection (refused, no route) reached nothing:
		// it was certainly not processed.
		r.NotDelivered = notDelivered(resp.err)
		r.Uncertain = !r.NotDelivered && !errors.Is(resp.err, record.ErrTooLarge)
		if r.Uncertain || r.NotDelivered {
			r.Code = 0
		}
		r.Error = errorText(resp.err)
		if d.pay != nil {
			d.pay.Outcome = record.OutcomeUncertain
			if r.NotDelivered {
				d.pay.Outcome = record.OutcomeNotDelivered
				if d.wallet != nil && d.pay.Attempt == 0 { // a retry keeps its reservation for its next send
					d.wallet.settle(d.pay)
				}
			}
			d.pay.Message = r.Error
		}
		return r
	}
	trxID := ""
	if d.pay != nil {
		trxID = d.pay.ID
	}
	ck, ce := checkResponse(e.codes, d.call.op, resp.code, resp.body, trxID)
	if ck.violation == "" {
		if err := contract.CheckContentType(resp.contentType); err != nil {
			ck.violation = fmt.Sprintf("%s: HTTP %d: %v", d.call.op, resp.code, err)
		}
	}
	r.Violation = ck.violation
	if r.Violation != "" {
		r.Error = "contract: " + r.Violation
		r.Body = record.Truncate(resp.body, 512)
	}
	switch d.call.op {
	case record.OpCreate:
		p := d.pay
		p.Code, p.Message = resp.code, ck.env.Message
		switch {
		case resp.code == http.StatusOK && ck.env.Status && ce != nil:
			p.Outcome = record.OutcomeCreated
			a := ce.Data.Transaction.Amount
			p.Amount = &a
			p.TransactionNumber = ce.Data.Transaction.TransactionNumber
			p.Message = ""
			e.plan.remember(p.ID, d.call.auth)
		case resp.code == http.StatusConflict:
			p.Outcome = record.OutcomeDuplicate
		case resp.code >= 500:
			p.Outcome = record.OutcomeUncertain
		default:
			p.Outcome = record.OutcomeRefused
		}
		r.Expected = p.Outcome == record.OutcomeCreated || ((d.wave || p.Attempt > 1) && p.Outcome == record.OutcomeDuplicate)
		if d.wallet != nil && (p.Attempt <= 1 || p.Outcome != record.OutcomeDuplicate) { // a retry's 409: its first send was debited
			d.wallet.settle(p)
		}
	default:
		r.Expected = resp.code == http.StatusOK
	}
	r.Expected = r.Expected && r.Violation == ""
	r.Allowed = r.Violation == "" && resp.code < 500
	if !r.Expected && r.Error == "" {
		// An answer the scenario did not expect says why in its message:
		// keep it, as vegeta keeps an error, for the report's error set.
		r.Error = fmt.Sprintf("HTTP %d: %s", resp.code, ck.env.Message)
	}
	return r
}

// storeMax raises m to v if v is larger.
func storeMax(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}
