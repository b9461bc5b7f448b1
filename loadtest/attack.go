package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/profiles"
)

// Defaults of a run.
const (
	DefaultMaxConnections = 64
	DefaultMaxWorkers     = 256
	DefaultTimeout        = 5 * time.Second
	DefaultDrain          = 10 * time.Second
	DefaultLateAfter      = 10 * time.Millisecond
	DefaultWaveSize       = 32
	DefaultLookupWorkers  = 8
	// DefaultReconcileTimeout bounds the reconciliation after the attack
	// (status look-ups and wallet reads).
	DefaultReconcileTimeout = 2 * time.Minute
)

// Result is one request of a run: a vegeta.Result (Timestamp is the actual
// send time, Latency the raw latency) plus the time the pacer scheduled it,
// the operation, and the verdict of the checks.
type Result struct {
	vegeta.Result
	Scheduled time.Time `json:"scheduled"`
	Op        string    `json:"op"`
	// Expected is true when the response is what the scenario expects
	// (a created payment; for a wave, created or 409; 200 for reads).
	Expected bool `json:"expected"`
	// Uncertain is true when no response came back (timeout, transport error).
	Uncertain bool `json:"uncertain"`
	// Violation names the contract rule the response broke, if any.
	Violation string `json:"violation,omitempty"`
}

// Corrected is the latency from the scheduled send time to the end of the
// response: what a user arriving on schedule would have waited.
func (r *Result) Corrected() time.Duration { return r.End().Sub(r.Scheduled) }

// Meta describes a run (one shard).
type Meta struct {
	RunID          string        `json:"run_id"`
	Scenario       string        `json:"scenario"`
	Target         string        `json:"target"`
	Shard          Shard         `json:"shard"`
	Load           LoadProfile   `json:"load"`
	WaveSize       int           `json:"wave_size,omitempty"`
	PaymentMix     string        `json:"payment_mix"`
	OpMix          string        `json:"op_mix,omitempty"`
	MaxWorkers     int           `json:"max_workers"`
	MaxConnections int           `json:"max_connections"`
	Timeout        time.Duration `json:"timeout"`
	Drain          time.Duration `json:"drain"`
	LateAfter      time.Duration `json:"late_after"`
	Began          time.Time     `json:"began"`
	Ended          time.Time     `json:"ended"`
	Reconciled     bool          `json:"reconciled"`
	// Merged lists the shards combined by Merge; empty for one shard's run.
	Merged []Shard `json:"merged_shards,omitempty"`
}

// Generator is how well the load generator kept up with its schedule.
type Generator struct {
	Planned        int64         `json:"planned"` // requests the pacer scheduled within the duration (0: max rate)
	Sent           int64         `json:"sent"`
	Late           int64         `json:"late"` // sent more than LateAfter after their scheduled time
	LateAfter      time.Duration `json:"late_after"`
	MaxLateness    time.Duration `json:"max_lateness"`
	WorkerWaits    int64         `json:"worker_waits"`     // dispatches that found every worker busy at the cap
	ConnWaits      int64         `json:"connection_waits"` // requests started with every connection in use
	PeakWorkers    int64         `json:"peak_workers"`
	PeakInFlight   int64         `json:"peak_in_flight"`
	MaxWorkers     int           `json:"max_workers"`
	MaxConnections int           `json:"max_connections"`
	Duration       time.Duration `json:"duration"`  // the run's configured duration (sum over shards' wall time is not used)
	Abandoned      int64         `json:"abandoned"` // in-flight requests cut off at the drain timeout
}

// Outcome is everything a run produced: where the attack (producer) and the
// reports meet.
type Outcome struct {
	Meta      Meta              `json:"meta"`
	Generator Generator         `json:"generator"`
	Catalog   *Catalog          `json:"catalog,omitempty"`
	Accounts  []AccountSnapshot `json:"accounts"`
	Results   []Result          `json:"-"`
	Ledger    []Payment         `json:"-"`
	// Reconciliation is nil when the run was not reconciled.
	Reconciliation *Reconciliation `json:"-"`
}

// Progress is a snapshot of a running attack, delivered every interval and
// once more, with Final set, when the attack ends.
type Progress struct {
	Elapsed    time.Duration
	Sent       int64
	Done       int64
	InFlight   int64
	Final      bool          // the last update, when the attack has ended
	Rate       float64       // sends per second over the last interval (the whole run when Final)
	P50, P99   time.Duration // corrected latency over the last interval
	Unexpected int64         // responses other than expected, so far
	Violations int64         // contract violations, so far
}

// Option configures a Tester.
type Option func(*config)

type config struct {
	scenario         string
	load             LoadProfile
	mix, ops         Weights
	waveSize         int
	maxWorkers       int
	maxConns         int
	timeout          time.Duration
	drain            time.Duration
	lateAfter        time.Duration
	shard            Shard
	runID            string
	reconcile        bool
	reconcileTimeout time.Duration
	catalog          *Catalog
	progress         func(Progress)
	progressEvery    time.Duration
	logger           *slog.Logger
	lookupWorkers    int
	provisionCount   int
}

// WithScenario sets the scenario (create, idempotency or mixed).
func WithScenario(name string) Option { return func(c *config) { c.scenario = name } }

// WithLoad sets the rate, duration and pacing.
func WithLoad(lp LoadProfile) Option { return func(c *config) { c.load = lp } }

// WithPaymentMix sets the weights of the balance, coins and gateway kinds.
func WithPaymentMix(w Weights) Option { return func(c *config) { c.mix = w } }

// WithOpMix sets the weights of create, status, list and sync in the mixed scenario.
func WithOpMix(w Weights) Option { return func(c *config) { c.ops = w } }

// WithWaveSize sets N, the requests per idempotency wave.
func WithWaveSize(n int) Option { return func(c *config) { c.waveSize = n } }

// WithMaxWorkers caps the concurrent requests (goroutines) of the generator.
func WithMaxWorkers(n int) Option { return func(c *config) { c.maxWorkers = n } }

// WithMaxConnections caps the connections to the target.
func WithMaxConnections(n int) Option { return func(c *config) { c.maxConns = n } }

// WithTimeout sets the per-request timeout.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDrain sets how long in-flight requests may finish after the duration.
func WithDrain(d time.Duration) Option { return func(c *config) { c.drain = d } }

// WithLateAfter sets how late a send may be before it counts as late.
func WithLateAfter(d time.Duration) Option { return func(c *config) { c.lateAfter = d } }

// WithShard makes the run one shard of a distributed run.
func WithShard(s Shard) Option { return func(c *config) { c.shard = s } }

// WithRunID sets the run id (shared by every shard of a distributed run).
func WithRunID(id string) Option { return func(c *config) { c.runID = id } }

// WithReconcile turns the after-run reconciliation on (the default) or off.
func WithReconcile(on bool) Option { return func(c *config) { c.reconcile = on } }

// WithReconcileTimeout bounds the reconciliation: the status look-ups and
// wallet reads that have not finished by then are given up, and the ids
// and accounts they concern are reported as not reconciled (a violation).
func WithReconcileTimeout(d time.Duration) Option { return func(c *config) { c.reconcileTimeout = d } }

// WithCatalog skips catalog discovery and uses cat.
func WithCatalog(cat *Catalog) Option { return func(c *config) { c.catalog = cat } }

// WithProgress calls fn every interval during the attack, from one goroutine.
func WithProgress(every time.Duration, fn func(Progress)) Option {
	return func(c *config) { c.progress, c.progressEvery = fn, every }
}

// WithLogger sets the logger for setup and reconciliation events.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Tester runs one load test against one target.
type Tester struct {
	profile *profiles.Profile
	cfg     config
}

// New returns a Tester for the target described by profile p.
func New(p *profiles.Profile, opts ...Option) *Tester {
	c := config{
		scenario:         ScenarioCreate,
		load:             LoadProfile{Pacing: PacingConstant, Rate: 50, Duration: 2 * time.Second},
		mix:              DefaultPaymentMix,
		ops:              DefaultOpMix,
		waveSize:         DefaultWaveSize,
		maxWorkers:       DefaultMaxWorkers,
		maxConns:         DefaultMaxConnections,
		timeout:          DefaultTimeout,
		drain:            DefaultDrain,
		lateAfter:        DefaultLateAfter,
		shard:            SingleShard,
		reconcile:        true,
		reconcileTimeout: DefaultReconcileTimeout,
		lookupWorkers:    DefaultLookupWorkers,
		provisionCount:   4,
		logger:           slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(&c)
	}
	return &Tester{profile: p, cfg: c}
}

func (c *config) validate() error {
	switch c.scenario {
	case ScenarioCreate, ScenarioIdempotency, ScenarioMixed:
	default:
		return fmt.Errorf("unknown scenario %q (want create, idempotency or mixed)", c.scenario)
	}
	if err := c.load.Validate(); err != nil {
		return err
	}
	if c.maxWorkers < 1 || c.maxConns < 1 {
		return errors.New("max workers and max connections must be at least 1")
	}
	if c.timeout <= 0 || c.drain < 0 {
		return errors.New("timeout must be above 0 and drain not negative")
	}
	if c.reconcileTimeout <= 0 {
		return errors.New("reconcile timeout must be above 0")
	}
	if c.scenario == ScenarioIdempotency && (c.waveSize < 2 || c.waveSize > c.maxWorkers) {
		return fmt.Errorf("wave size must be between 2 and max workers (%d)", c.maxWorkers)
	}
	if c.runID == "" {
		c.runID = NewRunID()
	}
	return c.shard.Validate()
}

// Run performs the load test: set-up (accounts, catalog, wallets before),
// the attack, the drain, and the reconciliation (status look-ups, wallets
// after). It returns an error only when the run could not be carried out;
// what the target did wrong is in the Outcome.
func (t *Tester) Run(ctx context.Context) (*Outcome, error) {
	c := t.cfg
	if err := c.validate(); err != nil {
		return nil, err
	}
	codes, err := DocumentedCodes()
	if err != nil {
		return nil, err
	}
	ids, err := NewIDs(c.runID, c.shard)
	if err != nil {
		return nil, err
	}
	tgt, err := newTarget(t.profile, c.maxConns, c.timeout)
	if err != nil {
		return nil, err
	}
	defer tgt.close()

	accounts := partitionAccounts(t.profile, c.shard)
	if len(accounts) == 0 {
		c.logger.Info("no funded accounts in the profile; provisioning unfunded accounts", "count", c.provisionCount)
		if accounts, err = tgt.provision(ctx, c.runID, c.shard, c.provisionCount); err != nil {
			return nil, err
		}
	}
	cat := c.catalog
	if cat == nil {
		exclude := map[int64]bool{}
		if id := t.profile.Fixtures.UnprocessableProductID; id != 0 {
			exclude[id] = true
		}
		if cat, err = tgt.discover(ctx, DefaultSubCategories, exclude, accounts[0].auth); err != nil {
			return nil, err
		}
	}
	plan, err := newPlanner(c.scenario, tgt, ids, c.shard, accounts, cat, c.mix, c.ops, c.waveSize)
	if err != nil {
		return nil, err
	}

	out := &Outcome{
		Meta: Meta{RunID: c.runID, Scenario: c.scenario, Target: tgt.base, Shard: c.shard, Load: c.load,
			PaymentMix: plan.mix.String(), MaxWorkers: c.maxWorkers, MaxConnections: c.maxConns,
			Timeout: c.timeout, Drain: c.drain, LateAfter: c.lateAfter, Reconciled: c.reconcile},
		Catalog: cat,
	}
	if c.scenario == ScenarioIdempotency {
		out.Meta.WaveSize = c.waveSize
	}
	if c.scenario == ScenarioMixed {
		out.Meta.OpMix = c.ops.String()
	}
	snaps := make([]AccountSnapshot, len(accounts))
	if c.reconcile {
		for i, a := range accounts {
			snaps[i] = AccountSnapshot{Account: a.Key, Shard: c.shard.Index, Shared: a.Shared}
			w, err := tgt.wallet(ctx, a.auth)
			if err != nil {
				snaps[i].Error = err.Error()
				continue
			}
			snaps[i].Before = &w
		}
	}

	e := &engine{cfg: &c, t: tgt, plan: plan, codes: codes}
	out.Meta.Began = time.Now().UTC()
	e.attack(ctx)
	out.Results, out.Ledger, out.Generator = e.results, e.ledger, e.generator()

	if c.reconcile {
		// Reconciliation runs even when ctx was cancelled, bounded by its
		// own deadline: what is not looked up or read by then is not
		// reconciled, which is a violation.
		post, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.reconcileTimeout)
		defer cancel()
		if missed := e.lookups(post, accounts); missed > 0 {
			c.logger.Warn("reconciliation timed out; created ids left unreconciled", "timeout", c.reconcileTimeout, "ids", missed)
		}
		for i, a := range accounts {
			if snaps[i].Error != "" {
				continue
			}
			w, err := tgt.wallet(post, a.auth)
			if err != nil {
				snaps[i].Error = err.Error()
				continue
			}
			snaps[i].After = &w
		}
		out.Accounts = snaps
		out.Reconciliation = Reconcile(out.Ledger, out.Accounts, c.shard.Count == 1)
	}
	out.Meta.Ended = time.Now().UTC()
	return out, nil
}

// engine runs the attack of one Tester.Run.
type engine struct {
	cfg   *config
	t     *Target
	plan  *planner
	codes map[string]map[int]bool

	reqCtx context.Context // parent of every request; cancelled at the drain timeout

	sent, done, late, workerWaits, connWaits atomic.Int64
	inFlight, peakInFlight, maxLate          atomic.Int64
	unexpected, violations                   atomic.Int64
	workers                                  int64
	planned                                  int64
	abandoned                                int64

	results []Result
	ledger  []Payment
}

func (e *engine) generator() Generator {
	return Generator{
		Planned: e.planned, Sent: e.sent.Load(), Late: e.late.Load(), LateAfter: e.cfg.lateAfter,
		MaxLateness: time.Duration(e.maxLate.Load()), WorkerWaits: e.workerWaits.Load(),
		ConnWaits: e.connWaits.Load(), PeakWorkers: e.workers, PeakInFlight: e.peakInFlight.Load(),
		MaxWorkers: e.cfg.maxWorkers, MaxConnections: e.cfg.maxConns, Duration: e.cfg.load.Duration,
		Abandoned: e.abandoned,
	}
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
	pacer, _ := c.load.Pacer()
	unbounded := c.load.Unbounded()
	perTick := int64(1)
	if c.scenario == ScenarioIdempotency {
		perTick = int64(c.waveSize)
	}

	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	e.reqCtx = reqCtx

	results := make(chan hitResult, 4096)
	jobs := make(chan dispatched)
	var wg sync.WaitGroup
	collected := make(chan struct{})
	began := time.Now()
	go e.collect(results, began, collected)

	spawn := func() {
		e.workers++
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				var j job
				if d.built != nil {
					j = *d.built
				} else {
					j = e.plan.single(d.n)
				}
				results <- hitResult{e.hit(j, d.scheduled), j.pay}
			}
		}()
	}
	for range min(c.maxWorkers, 8) {
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
		if e.workers < int64(c.maxWorkers) {
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
	s := schedule{p: pacer}
	var planned int64
	walked := false // the schedule was walked to its end
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
loop:
	for n := uint64(0); ; n++ {
		due, ok := s.next()
		if !ok || due > c.load.Duration {
			walked = true
			break
		}
		planned++
		if ctx.Err() != nil {
			break
		}
		at := began.Add(due)
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
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
		if !e.plan.waves() {
			if !send(dispatched{n: n, scheduled: at}) {
				break loop
			}
			continue
		}
		wave := e.plan.wave(n)
		for i := range wave {
			if !send(dispatched{built: &wave[i], scheduled: at}) {
				break loop
			}
		}
	}
	close(jobs)
	if !unbounded { // a max-rate schedule never ends, and plans nothing
		if !walked {
			planned += s.remaining(c.load.Duration)
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
	sort.Slice(e.results, func(i, j int) bool { return e.results[i].Seq < e.results[j].Seq })
	sort.Slice(e.ledger, func(i, j int) bool { return e.ledger[i].Seq < e.ledger[j].Seq })
}

// hit sends job d, scheduled at scheduled, and checks its response.
func (e *engine) hit(d job, scheduled time.Time) *Result {
	sent := time.Now()
	e.sent.Add(1)
	if late := sent.Sub(scheduled); late > e.cfg.lateAfter {
		e.late.Add(1)
		storeMax(&e.maxLate, int64(late))
	}
	in := e.inFlight.Add(1)
	if in > int64(e.cfg.maxConns) {
		e.connWaits.Add(1)
	}
	storeMax(&e.peakInFlight, in)
	ctx, cancel := context.WithTimeout(e.reqCtx, e.cfg.timeout)
	resp := e.t.do(ctx, d.call)
	cancel()
	e.inFlight.Add(-1)
	end := time.Now()

	r := &Result{
		Result: vegeta.Result{
			Attack: d.call.op, Seq: d.seq, Code: uint16(resp.code), Timestamp: sent,
			Latency: end.Sub(sent), BytesOut: uint64(len(d.call.body)), BytesIn: resp.bytes,
			Method: d.call.method, URL: d.call.url,
		},
		Scheduled: scheduled, Op: d.call.op,
	}
	if resp.err != nil {
		r.Uncertain = true
		r.Code = 0
		r.Error = errorText(resp.err)
		if d.pay != nil {
			d.pay.Outcome = OutcomeUncertain
			d.pay.Message = r.Error
		}
		return r
	}
	trxID := ""
	if d.pay != nil {
		trxID = d.pay.ID
	}
	ck, ce := checkResponse(e.codes, d.call.op, resp.code, resp.body, trxID)
	r.Violation = ck.violation
	if r.Violation != "" {
		r.Error = "contract: " + r.Violation
		r.Body = truncate(resp.body, 512)
	}
	switch d.call.op {
	case OpCreate:
		p := d.pay
		p.Code, p.Message = resp.code, ck.env.Message
		switch {
		case resp.code == http.StatusOK && ck.env.Status && ce != nil:
			p.Outcome = OutcomeCreated
			a := ce.Data.Transaction.Amount
			p.Amount = &a
			p.TransactionNumber = ce.Data.Transaction.TransactionNumber
			p.Message = ""
			e.plan.remember(p.ID, d.call.auth)
		case resp.code == http.StatusConflict:
			p.Outcome = OutcomeDuplicate
		case resp.code >= 500:
			p.Outcome = OutcomeUncertain
		default:
			p.Outcome = OutcomeRefused
		}
		r.Expected = p.Outcome == OutcomeCreated || (d.wave && p.Outcome == OutcomeDuplicate)
	default:
		r.Expected = resp.code == http.StatusOK
	}
	r.Expected = r.Expected && r.Violation == ""
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

// hitResult carries a result and, for a payment creation, its ledger entry
// from a worker to the collector.
type hitResult struct {
	r   *Result
	pay *Payment
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	return append([]byte(nil), b...)
}

// collect gathers results and delivers progress.
func (e *engine) collect(results <-chan hitResult, began time.Time, done chan<- struct{}) {
	defer close(done)
	var tick <-chan time.Time
	if e.cfg.progress != nil && e.cfg.progressEvery > 0 {
		tk := time.NewTicker(e.cfg.progressEvery)
		defer tk.Stop()
		tick = tk.C
	}
	var window []time.Duration
	lastSent, lastAt := int64(0), began
	report := func(now time.Time, final bool) {
		sent := e.sent.Load()
		p := Progress{Elapsed: now.Sub(began), Sent: sent, Done: e.done.Load(), InFlight: e.inFlight.Load(),
			Final: final, Unexpected: e.unexpected.Load(), Violations: e.violations.Load()}
		if final {
			lastSent, lastAt = 0, began
		}
		if d := now.Sub(lastAt).Seconds(); d > 0 {
			p.Rate = float64(sent-lastSent) / d
		}
		if len(window) > 0 {
			sort.Slice(window, func(i, j int) bool { return window[i] < window[j] })
			p.P50, p.P99 = quantile(window, 0.5), quantile(window, 0.99)
		}
		window = window[:0]
		lastSent, lastAt = sent, now
		e.cfg.progress(p)
	}
	for {
		select {
		case hr, ok := <-results:
			if !ok {
				// A final update, so that even a run shorter than one
				// progress interval reports what it did.
				if tick != nil {
					report(time.Now(), true)
				}
				return
			}
			r := hr.r
			if hr.pay != nil {
				e.ledger = append(e.ledger, *hr.pay)
			}
			e.done.Add(1)
			if !r.Expected {
				e.unexpected.Add(1)
			}
			if r.Violation != "" {
				e.violations.Add(1)
			}
			window = append(window, r.Corrected())
			e.results = append(e.results, *r)
		case now := <-tick:
			report(now, false)
		}
	}
}

// lookups checks every created id through payment status, with a few
// workers, until ctx is done. It fills Payment.Lookup of the first created
// request of each id, and returns how many ids it did not get to (their
// Lookup stays nil, which reconciliation reports).
func (e *engine) lookups(ctx context.Context, accounts []Account) int {
	auths := map[string]string{}
	for _, a := range accounts {
		auths[a.Key] = a.auth
	}
	first := map[string]*Payment{}
	for i := range e.ledger {
		p := &e.ledger[i]
		if p.Outcome == OutcomeCreated && first[p.ID] == nil {
			first[p.ID] = p
		}
	}
	work := make(chan *Payment)
	var wg sync.WaitGroup
	for range e.cfg.lookupWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				l := e.lookup(ctx, p, auths[p.Account])
				if l.Error != "" && ctx.Err() != nil {
					continue // cut off by the deadline: not looked up
				}
				p.Lookup = l
			}
		}()
	}
dispatch:
	for _, p := range first {
		select {
		case work <- p:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(work)
	wg.Wait()
	missed := 0
	for _, p := range first {
		if p.Lookup == nil {
			missed++
		}
	}
	return missed
}

func (e *engine) lookup(ctx context.Context, p *Payment, auth string) *Lookup {
	q := url.Values{"partner_trx_id": {p.ID}}
	r := e.t.doTimed(ctx, e.t.get(OpStatus, pathStatus, auth, q))
	if r.err != nil {
		return &Lookup{Error: errorText(r.err)}
	}
	l := &Lookup{Code: r.code}
	if r.code != http.StatusOK {
		return l
	}
	var env statusEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		l.Error = "status body does not decode: " + err.Error()
		return l
	}
	if env.Data.PartnerTrxID != p.ID {
		l.Error = "status answered for partner_trx_id " + strconv.Quote(env.Data.PartnerTrxID)
		return l
	}
	a := env.Data.Amount
	l.Amount, l.TransactionNumber = &a, env.Data.TransactionNumber
	return l
}
