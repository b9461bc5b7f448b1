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
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// engine runs the attack of one Tester.Run.
type engine struct {
	cfg    *config
	cl     *client
	plan   *planner
	codes  map[string]map[int]bool
	valid  *contract.Validator    // judges the sampled answers' bodies (schemaSampled)
	hist   *record.History        // nil without the history check
	deadAt atomic.Pointer[string] // the error that stopped the look-ups: the target stopped answering
	// onBegin, when set, is called as the attack begins (the nemesis
	// starts its schedule there).
	onBegin func(began time.Time)

	reqCtx context.Context // parent of every request; cancelled at the drain timeout

	sent, done, late, workerWaits, connWaits atomic.Int64
	behind                                   fellBehind
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
	// marks, when the ledger streams to its file and is reconciled, is
	// what the look-ups need of it in memory (lookupFile).
	marks *seqMarks
	// order numbers each operation's sends (record.Result.Order), for the
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
	g.BehindFrom, g.BehindUntil = e.behind.span()
	return g
}

// behindAfter is how many times LateAfter a send must be late to say the
// generator fell behind: a pause of the collector makes a few sends late
// by a few milliseconds; this much lateness is requests piling up.
const behindAfter = 10

// fellBehind is when the generator could not keep its schedule: a send
// more than behindAfter × lateAfter late, or a hit that waited for a
// worker at the cap.
type fellBehind struct {
	first, last atomic.Int64 // since the attack began, plus 1 ns; 0: never
}

// mark records that the generator was behind at, since the attack began.
func (f *fellBehind) mark(at time.Duration) {
	v := int64(at) + 1
	if f.first.Load() == 0 {
		f.first.CompareAndSwap(0, v)
	}
	storeMax(&f.last, v)
}

// span is the first and the last time the generator was behind; zero when
// it never was.
func (f *fellBehind) span() (first, last time.Duration) {
	a, b := f.first.Load(), f.last.Load()
	if a == 0 {
		return 0, 0
	}
	return time.Duration(a - 1), time.Duration(b - 1)
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
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	e.reqCtx = reqCtx
	e.numberOps()
	results := make(chan record.HitResult, 4096)
	// The collector's next cycle must scan what the recorder allocated (it
	// holds pointers): run it now, before the schedule starts, rather than
	// in its first tens of milliseconds, where its assists made sends late
	// (44 ms of assist CPU at 5,000/s for 5 s, 36 sends late in the first
	// 100 ms).
	runtime.GC()
	collected := make(chan struct{})
	e.began = time.Now()
	e.rec.Tally.Timeline.Start = e.began
	if e.onBegin != nil {
		e.onBegin(e.began)
	}
	go e.collect(results, e.began, collected)
	stopReads := e.startReads()

	p := e.startPool(results)
	e.pace(ctx, p)
	e.sending = time.Since(e.began)
	close(p.jobs)
	stopReads()
	if ctx.Err() != nil {
		e.interrupted = time.Since(e.began)
	} else if e.ranDry() {
		e.stoppedDry = time.Since(e.began)
	}
	e.drainWorkers(p, cancelReqs)
	close(results)
	<-collected
}

// numberOps sets one send counter per operation (record.Result.Order), and one
// shared by the operations it does not name.
func (e *engine) numberOps() {
	e.order = map[string]*atomic.Uint64{}
	for _, op := range []string{"", record.OpCreate, record.OpStatus, record.OpList, record.OpSync, record.OpProfile, record.OpMethods, record.OpProvision} {
		e.order[op] = &atomic.Uint64{}
	}
}

// pool is the attack's workers: each takes dispatched hits from jobs,
// sends them and hands their results to the collector.
type pool struct {
	e       *engine
	jobs    chan dispatched
	results chan<- record.HitResult
	wg      sync.WaitGroup
	ended   <-chan time.Time // fires at the duration of a max-rate run; nil otherwise
}

// startPool starts the first workers; dispatch starts more as needed.
func (e *engine) startPool(results chan<- record.HitResult) *pool {
	p := &pool{e: e, jobs: make(chan dispatched), results: results}
	for range cmp.Or(min(e.cfg.maxWorkers, 8), 8) {
		p.spawn()
	}
	return p
}

// spawn starts one more worker. Only the pacing goroutine calls it.
func (p *pool) spawn() {
	p.e.workers++
	client := int(p.e.workers) - 1
	p.wg.Add(1)
	go p.work(client)
}

// work is one worker, numbered client in the history: it builds each hit's
// job (so that the pacing goroutine only paces) and sends it.
func (p *pool) work(client int) {
	defer p.wg.Done()
	e := p.e
	var buf [1]job
	for d := range p.jobs {
		var j job
		if d.built != nil {
			j = *d.built
		} else {
			j = e.cfg.sc.jobs(e.plan, d.n, buf[:0])[0]
		}
		e.send(j, d.scheduled, client, p.results)
	}
}

// dispatch hands d to a worker, starting one when none is waiting and the
// cap allows; at the cap it waits for one, and the run has fallen behind.
// It returns false when the run ended or was stopped before a worker took d.
func (p *pool) dispatch(ctx context.Context, d dispatched) bool {
	select {
	case p.jobs <- d:
		return true
	default:
	}
	// No worker is waiting: start one, as vegeta does, unless at the
	// cap. Waiting for a worker on its way back instead would not keep
	// a starved CPU from piling up workers, and makes more sends late
	// at 7,500/s.
	e := p.e
	if e.cfg.maxWorkers == 0 || e.workers < int64(e.cfg.maxWorkers) {
		p.spawn()
	} else {
		e.workerWaits.Add(1)
		e.behind.mark(time.Since(e.began))
	}
	select {
	case p.jobs <- d:
		return true
	case <-p.ended:
		return false
	case <-ctx.Done():
		return false
	}
}

// pace walks the schedule and dispatches its hits, then counts what the
// schedule planned within the duration.
func (e *engine) pace(ctx context.Context, p *pool) {
	c := e.cfg
	perTick := int64(c.sc.perHit(c))
	// Rates are requests per second; the schedule paces hits of perTick
	// requests each. validate has checked the divided profile.
	pacer, _ := c.load.Divided(int(perTick)).Pacer()
	s := pacing.Schedule{Pacer: pacer}
	deadline, stop := e.deadline(p)
	defer stop()
	planned, walked := e.walk(ctx, p, &s, perTick, deadline)
	if c.load.Unbounded() { // a max-rate schedule never ends, and plans nothing
		return
	}
	// When the walk stopped early, the rest of the schedule is counted.
	if !walked {
		planned += s.Remaining(c.load.Duration)
	}
	e.planned = planned * perTick
}

// deadline is when the pacing stops. A paced hit due within the duration
// may still be sent a little late; past this grace the generator stops, so
// the run stays bounded. A max-rate run has no schedule to be late on: it
// stops at the duration, so that sends ÷ duration is the rate it achieved,
// and p.ended fires then. stop releases the timer.
func (e *engine) deadline(p *pool) (deadline time.Time, stop func()) {
	d := e.cfg.load.Duration
	if !e.cfg.load.Unbounded() {
		return e.began.Add(d + min(time.Second, d/10)), func() {}
	}
	end := time.NewTimer(time.Until(e.began.Add(d)))
	p.ended = end.C
	return e.began.Add(d), func() { end.Stop() }
}

// walk dispatches each hit of s due within the duration at its time, until
// the schedule ends (walked), the run is stopped or ran dry, or the
// deadline passes. planned counts the hits it reached.
func (e *engine) walk(ctx context.Context, p *pool, s *pacing.Schedule, perTick int64, deadline time.Time) (planned int64, walked bool) {
	c := e.cfg
	unbounded := c.load.Unbounded()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for n := uint64(0); ; n++ {
		due, ok := s.Next()
		if !ok || due > c.load.Duration {
			return planned, true
		}
		planned++
		if ctx.Err() != nil || e.ranDry() {
			return planned, false
		}
		at := e.began.Add(due)
		if !e.waitUntil(ctx, timer, at) {
			return planned, false
		}
		now := time.Now()
		if now.After(deadline) {
			return planned, false // bounded: whatever is not sent by now is not sent
		}
		if unbounded {
			at = now
		}
		if !e.dispatchHit(ctx, p, n, at, perTick) {
			return planned, false
		}
	}
}

// waitUntil waits on timer until at; false when the run was stopped or ran
// dry first.
func (e *engine) waitUntil(ctx context.Context, timer *time.Timer, at time.Time) bool {
	wait := time.Until(at)
	if wait <= 0 {
		return true
	}
	timer.Reset(wait)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	case <-e.plan.dry:
		return false
	}
}

// dispatchHit dispatches hit n, scheduled at at: one job a worker builds,
// or the perTick jobs of a wave, built here once.
func (e *engine) dispatchHit(ctx context.Context, p *pool, n uint64, at time.Time, perTick int64) bool {
	if perTick == 1 {
		return p.dispatch(ctx, dispatched{n: n, scheduled: at})
	}
	wave := e.cfg.sc.jobs(e.plan, n, make([]job, 0, perTick))
	for i := range wave {
		if !p.dispatch(ctx, dispatched{built: &wave[i], scheduled: at}) {
			return false
		}
	}
	return true
}

// drainWorkers waits for the workers to finish what they sent, up to the
// drain timeout; then it cuts off the requests still in flight.
func (e *engine) drainWorkers(p *pool, cancelReqs context.CancelFunc) {
	finished := make(chan struct{})
	go func() { p.wg.Wait(); close(finished) }()
	drain := time.NewTimer(e.cfg.drain)
	defer drain.Stop()
	select {
	case <-finished:
	case <-drain.C:
		e.abandoned = e.inFlight.Load()
		cancelReqs()
		<-finished
	}
}

// keep records hr, as the collector receives it.
func (e *engine) keep(hr *record.HitResult) {
	e.rec.Add(hr)
	if e.marks != nil && hr.Pay != nil {
		e.marks.note(hr.Pay, len(e.cfg.nemesis) > 0)
	}
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

// hit sends job d, scheduled at scheduled, and checks its response. hold
// is what a throttled answer asks the client to wait (Retry-After, or
// throttle.DefaultWait when it says nothing); 0 for any other answer.
func (e *engine) hit(d job, scheduled time.Time) (r record.Result, hold time.Duration) {
	sent, order := e.start(&d, scheduled)
	ctx, cancel := context.WithTimeout(e.reqCtx, e.timeoutOf(d))
	resp := e.cl.do(ctx, d.call)
	defer resp.release()
	cancel()
	e.inFlight.Add(-1)
	end := time.Now()

	if d.pay != nil {
		d.pay.At = sent
	}
	r = record.Result{
		Result: vegeta.Result{
			Attack: d.call.op, Seq: d.seq, Code: uint16(resp.code), Timestamp: sent,
			Latency: end.Sub(sent), BytesOut: uint64(len(d.call.body)), BytesIn: resp.bytes,
			Method: d.call.method, URL: d.call.url,
		},
		Scheduled: scheduled, Op: d.call.op, Order: order,
	}
	if resp.err != nil {
		unanswered(&d, &r, resp.err)
		return r, 0
	}
	if resp.throttled {
		return r, throttled(&d, &r, &resp, end)
	}
	e.judge(&d, &r, &resp)
	return r, 0
}

// throttled records a throttled answer to d (a 429, or a 503 with
// Retry-After): the target refused the request for its rate and did not
// process it, so a payment is a refusal that debits nothing. The answer is
// not the API's: it is neither checked against the contract nor a server
// error, and the scenario did not get what it expected. It returns the
// hold the answer asks for.
func throttled(d *job, r *record.Result, resp *response, at time.Time) time.Duration {
	r.Throttled, r.Allowed = true, true
	r.Error = fmt.Sprintf("throttled: HTTP %d", resp.code)
	if p := d.pay; p != nil {
		p.Outcome, p.Code, p.Message = record.OutcomeThrottled, resp.code, "throttled"
		if d.wallet != nil && p.Attempt == 0 { // a retry keeps its reservation for its next send
			d.wallet.settle(p)
		}
	}
	hold, ok := contract.RetryAfter(resp.header(), at)
	if !ok {
		hold = throttle.DefaultWait
	}
	return hold
}

// start counts the send of d, now: its number among its operation's sends,
// whether it is late, and the requests in flight.
func (e *engine) start(d *job, scheduled time.Time) (sent time.Time, order uint64) {
	sent = time.Now()
	counter := e.order[d.call.op]
	if counter == nil { // an operation the engine did not number: share one counter
		counter = e.order[""]
	}
	order = counter.Add(1) - 1
	e.sent.Add(1)
	if late := sent.Sub(scheduled); late > e.cfg.lateAfter {
		e.late.Add(1)
		storeMax(&e.maxLate, int64(late))
		if late > behindAfter*e.cfg.lateAfter {
			e.behind.mark(sent.Sub(e.began))
		}
	}
	in := e.inFlight.Add(1)
	if e.cfg.maxConns > 0 && in > int64(e.cfg.maxConns) {
		e.connWaits.Add(1)
	}
	storeMax(&e.peakInFlight, in)
	return sent, order
}

// unanswered records a request of d that got no answer the checks can read.
func unanswered(d *job, r *record.Result, err error) {
	// No answer, or one too long to read: what the server did with a
	// payment is not known. An answer cut at the size limit keeps its
	// status code, but is not an answer the checks can read. A request
	// that never had a connection (refused, no route) reached nothing:
	// it was certainly not processed.
	r.NotDelivered = notDelivered(err)
	r.Uncertain = !r.NotDelivered && !errors.Is(err, record.ErrTooLarge)
	if r.Uncertain || r.NotDelivered {
		r.Code = 0
	}
	r.Error = errorText(err)
	if d.pay == nil {
		return
	}
	d.pay.Outcome = record.OutcomeUncertain
	if r.NotDelivered {
		d.pay.Outcome = record.OutcomeNotDelivered
		if d.wallet != nil && d.pay.Attempt == 0 { // a retry keeps its reservation for its next send
			d.wallet.settle(d.pay)
		}
	}
	d.pay.Message = r.Error
}

// judge checks the answer to d against the contract and the scenario.
func (e *engine) judge(d *job, r *record.Result, resp *response) {
	trxID := ""
	if d.pay != nil {
		trxID = d.pay.ID
	}
	ck := checkResponse(e.codes, d.call.op, resp.code, resp.body, trxID)
	if ck.violation == "" {
		if err := contract.CheckContentType(resp.contentType); err != nil {
			ck.violation = fmt.Sprintf("%s: HTTP %d: %v", d.call.op, resp.code, err)
		}
	}
	// A sampled answer is judged against the schema too, which names the
	// field: for a created payment its verdict takes the place of
	// contract.CheckCreated's (a transaction number without a slash
	// breaks both).
	if (ck.violation == "" || ck.created) && e.valid != nil && schemaSampled(r.Order) {
		var ae *contract.AnswerError
		if err := e.valid.ValidateBody(e.reqCtx, operationIDs[d.call.op], resp.code, resp.body); errors.As(err, &ae) {
			ck.violation = fmt.Sprintf("%s: HTTP %d: %s", d.call.op, resp.code, ae.Brief())
		}
	}
	r.Violation = ck.violation
	if r.Violation != "" {
		r.Error = "contract: " + r.Violation
		r.Body = record.Truncate(resp.body, 512)
	}
	if d.call.op == record.OpCreate {
		r.Expected = e.created(d, resp.code, &ck)
	} else {
		r.Expected = resp.code == http.StatusOK
	}
	r.Expected = r.Expected && r.Violation == ""
	// A 5xx is allowed only as the system fault section 7 gives the
	// operation, with its message.
	r.Allowed = r.Violation == "" && contract.CheckNoServerFault(operationIDs[d.call.op], resp.code, ck.env.Message) == nil
	if !r.Expected && r.Error == "" {
		// An answer the scenario did not expect says why in its message:
		// keep it, as vegeta keeps an error, for the report's error set.
		r.Error = fmt.Sprintf("HTTP %d: %s", resp.code, ck.env.Message)
	}
}

// created records what the answer code did to d's payment, settles its
// wallet, and reports whether the scenario expected that answer.
func (e *engine) created(d *job, code int, ck *checked) bool {
	p := d.pay
	p.Code, p.Message = code, ck.env.Message
	switch {
	case code == http.StatusOK && ck.env.Status && ck.created:
		p.Outcome = record.OutcomeCreated
		a := ck.payment.Amount
		p.Amount = &a
		p.TransactionNumber = ck.payment.TransactionNumber
		p.Message = ""
		e.plan.remember(p.ID, d.call.auth)
	case code == http.StatusConflict:
		p.Outcome = record.OutcomeDuplicate
	case code >= 500:
		p.Outcome = record.OutcomeUncertain
	default:
		p.Outcome = record.OutcomeRefused
	}
	if d.wallet != nil && (p.Attempt <= 1 || p.Outcome != record.OutcomeDuplicate) { // a retry's 409: its first send was debited
		d.wallet.settle(p)
	}
	return p.Outcome == record.OutcomeCreated || ((d.wave || p.Attempt > 1) && p.Outcome == record.OutcomeDuplicate)
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
