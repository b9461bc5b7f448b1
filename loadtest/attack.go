package loadtest

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// dispatched is a hit handed to a worker: hit number n, whose job the
// worker builds (so that the pacing goroutine only paces), or a job already
// built (a request of an idempotency wave, built once per wave).
type dispatched struct {
	n         uint64
	built     *job
	scheduled time.Time
}

// resultsBuffer is how many results wait for the collector: at
// 10,000/s, a tenth of a second of its stall (a write of its files, a
// pause). A result is about 260 bytes, held in the channel's array,
// which is live heap the collector multiplied by five at GOGC 400: 4,096
// of them made 5 MB of the load tester's peak at 5,000/s.
const resultsBuffer = 1024

// attack paces the jobs, runs them on a bounded pool of workers, drains,
// and collects the results.
func (e *engine) attack(ctx context.Context) {
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	e.reqCtx = reqCtx
	e.numberOps()
	results := make(chan record.HitResult, resultsBuffer)
	// The collector's next cycle must scan what the recorder allocated (it
	// holds pointers): run it now, before the schedule starts, rather than
	// in its first tens of milliseconds, where its assists made sends late
	// (44 ms of assist CPU at 5,000/s for 5 s, 36 sends late in the first
	// 100 ms).
	runtime.GC()
	collected := make(chan struct{})
	e.began = time.Now()
	e.rec.Tally.Timeline.Start = e.began
	if m := e.cfg.metrics; m != nil {
		m.InFlight(e.inFlight.Load)
	}
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
	switch {
	case ctx.Err() != nil:
		e.interrupted = time.Since(e.began)
	case e.ranDry():
		e.stoppedDry = time.Since(e.began)
	}
	e.drainWorkers(p, cancelReqs)
	close(results)
	<-collected
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
	for range cmp.Or(min(e.cfg.MaxWorkers, 8), 8) {
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
	if e.cfg.MaxWorkers == 0 || e.workers < int64(e.cfg.MaxWorkers) {
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

// pace walks the schedule and dispatches its hits, then counts the
// requests the schedule planned within the duration.
func (e *engine) pace(ctx context.Context, p *pool) {
	c := e.cfg
	perHit := c.sc.perHit(&c.Settings)
	// Rates are requests per second; the schedule paces hits of perHit
	// requests on average. validate has checked the divided profile.
	pacer, _ := c.Load.Divided(perHit).Pacer()
	s := pacing.Schedule{Pacer: pacer}
	deadline, stop := e.deadline(p)
	defer stop()
	planned, walked := e.walk(ctx, p, &s, deadline)
	if c.Load.Unbounded() { // a max-rate schedule never ends, and plans nothing
		return
	}
	// When the walk stopped early, the rest of the schedule is counted.
	if !walked {
		planned += int64(math.Round(float64(s.Remaining(c.Load.Duration)) * perHit))
	}
	e.planned = planned
}

// deadline is when the pacing stops. A paced hit due within the duration
// may still be sent a little late; past this grace the generator stops, so
// the run stays bounded. A max-rate run has no schedule to be late on: it
// stops at the duration, so that sends ÷ duration is the rate it achieved,
// and p.ended fires then. stop releases the timer.
func (e *engine) deadline(p *pool) (deadline time.Time, stop func()) {
	d := e.cfg.Load.Duration
	if !e.cfg.Load.Unbounded() {
		return e.began.Add(d + min(time.Second, d/10)), func() {}
	}
	end := time.NewTimer(time.Until(e.began.Add(d)))
	p.ended = end.C
	return e.began.Add(d), func() { end.Stop() }
}

// walk dispatches each hit of s due within the duration at its time, until
// the schedule ends (walked), the run is stopped or ran dry, or the
// deadline passes. planned counts the requests of the hits it reached.
func (e *engine) walk(ctx context.Context, p *pool, s *pacing.Schedule, deadline time.Time) (planned int64, walked bool) {
	c := e.cfg
	unbounded := c.Load.Unbounded()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for n := uint64(0); ; n++ {
		due, ok := s.Next()
		if !ok || due > c.Load.Duration {
			return planned, true
		}
		size := c.sc.hitSize(e.plan, n)
		planned += int64(size)
		if ctx.Err() != nil || e.ranDry() || e.gatewayStopped() {
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
		if !e.dispatchHit(ctx, p, n, at, size) {
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
	case <-e.gatewayStop:
		return false
	}
}

// dispatchHit dispatches hit n of size requests, scheduled at at: one job
// a worker builds, or the jobs of a wave, built here once.
func (e *engine) dispatchHit(ctx context.Context, p *pool, n uint64, at time.Time, size int) bool {
	if size == 1 {
		return p.dispatch(ctx, dispatched{n: n, scheduled: at})
	}
	wave := e.cfg.sc.jobs(e.plan, n, make([]job, 0, size))
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
	drain := time.NewTimer(e.cfg.Drain)
	defer drain.Stop()
	select {
	case <-finished:
	case <-drain.C:
		e.abandoned = e.inFlight.Load()
		cancelReqs()
		<-finished
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

// Profile reads of the history check: bounds of the interval at which each
// account is read.
const (
	minHistoryReadEvery = 5 * time.Millisecond
	maxHistoryReadEvery = time.Second
)

// readEvery is the interval of each account's profile reads: about one
// read for every five requests of the run, spread over the accounts.
func (c *config) readEvery(accounts int) time.Duration {
	if c.HistoryReads > 0 {
		return c.HistoryReads
	}
	rate := c.Load.Rate
	if rate <= 0 {
		rate = 1000
	}
	every := time.Duration(float64(time.Second) * float64(5*accounts) / rate)
	return min(max(every, minHistoryReadEvery), maxHistoryReadEvery)
}

// startReads starts one reader per account that reads its profile every
// interval until the returned function is called (which waits for them).
func (e *engine) startReads() func() {
	if e.hist == nil {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	every := e.cfg.readEvery(len(e.plan.accounts))
	for i, a := range e.plan.accounts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(every)
			defer tk.Stop()
			for {
				ctx, cancel := context.WithTimeout(e.reqCtx, e.cfg.Timeout)
				_, _ = readWallet(ctx, e.cl, e.hist, a, e.cfg.firstOtherClient()+i, record.PhaseAttack) // a failed read is recorded and checks nothing
				cancel()
				select {
				case <-stop:
					return
				case <-tk.C:
				}
			}
		}()
	}
	return func() { close(stop); wg.Wait() }
}
