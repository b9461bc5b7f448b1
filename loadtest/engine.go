package loadtest

import (
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
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

	sent, workerWaits, connWaits atomic.Int64
	behind                       fellBehind
	inFlight, peakInFlight       atomic.Int64
	workers                      int64
	planned                      int64
	interrupted                  time.Duration // when the attack was interrupted; 0 if it was not
	stoppedDry                   time.Duration // when the attack stopped because an account ran dry (--when-dry stop)
	abandoned                    int64
	began                        time.Time     // when the attack began
	sending                      time.Duration // from the start to the end of the sending loop

	rec *record.Recorder // what the collector gathers, counted and streamed
	// marks, when the run is reconciled or sends ids again, is what the
	// look-ups need of its ledger in memory (lookupFile), and what finds
	// an id created again (keep).
	marks *seqMarks
	// What the collector has counted as the answers came: the ids created
	// again, the answers (requests that got one) and those a gateway gave.
	createdAgain, answered, gateway int64
	// gatewayStop is closed when the answers so far were mostly a
	// gateway's (contract.MostlyGateway): the attack stops;
	// stoppedGateway is when.
	gatewayStop    chan struct{}
	stoppedGateway time.Duration
	// order numbers each operation's sends (record.Result.Order), for the
	// results file, in the order of their send times (vegeta's plot wants
	// both to grow together): one counter per operation, set before the
	// attack, taken with the send time under orderMu, as vegeta's attacker
	// takes its Seq and Timestamp.
	order   map[string]*uint64
	orderMu sync.Mutex
}

func (e *engine) generator() record.Generator {
	g := record.Generator{
		Planned: e.planned, Sent: e.sent.Load(), WorkerWaits: e.workerWaits.Load(),
		ConnWaits: e.connWaits.Load(), PeakWorkers: e.workers, PeakInFlight: e.peakInFlight.Load(),
		Abandoned: e.abandoned, Sending: e.sending,
	}
	g.InterruptedAfter, g.StoppedDryAfter, g.GatewayStopAfter = e.interrupted, e.stoppedDry, e.stoppedGateway
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

// numberOps sets one send counter per operation (record.Result.Order), and one
// shared by the operations it does not name.
func (e *engine) numberOps() {
	e.order = map[string]*uint64{}
	for _, op := range []string{"", record.OpCreate, record.OpStatus, record.OpList, record.OpSync, record.OpProfile, record.OpMethods, record.OpProvision} {
		e.order[op] = new(uint64)
	}
}

// send sends job j for worker client, records it and delivers its result.
// A payment of the retry scenario whose answer was lost is sent again,
// same id and body, after the backoff, up to the configured retries; so is
// a throttled one (not processed), after the wait its answer asks for
// (Retry-After), if longer. Each attempt is a result and a ledger entry of
// its own.
func (e *engine) send(j job, scheduled time.Time, client int, results chan<- record.HitResult) {
	for {
		r, hold := e.hit(j, scheduled)
		e.record(client, j, &r)
		j.settle(&r)
		p := j.pay
		if p != nil && p.Outcome == record.OutcomeCreated {
			e.plan.remember(p.ID, j.call.auth)
		}
		results <- record.HitResult{Result: r, Pay: p}
		if p == nil || p.Attempt == 0 || !r.Uncertain && !r.NotDelivered && !r.Throttled && !r.Gateway || p.Attempt > e.cfg.Retries {
			return
		}
		t := time.NewTimer(max(e.cfg.RetryBackoff<<(p.Attempt-1), hold))
		select {
		case <-t.C:
		case <-e.reqCtx.Done():
			t.Stop()
			return
		}
		next := record.Payment{ID: p.ID, Seq: p.Seq, Shard: p.Shard, Account: p.Account, Kind: p.Kind,
			ProductID: p.ProductID, MethodID: p.MethodID, MaxBalance: p.MaxBalance, MaxCoins: p.MaxCoins,
			Attempt: p.Attempt + 1}
		j.pay = &next
		scheduled = time.Now() // a retry is due when its backoff ends
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
		d.pay.At, d.pay.Latency = sent, end.Sub(sent)
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
		unanswered(&d, &r, resp.err, e.timeoutOf(d))
		return r, 0
	}
	if resp.throttled {
		return r, throttled(&d, &r, &resp, end)
	}
	if resp.gateway != nil {
		gatewayAnswered(&d, &r, &resp)
		return r, 0
	}
	e.judge(&d, &r, &resp)
	return r, 0
}

// gatewayAnswered records an answer a gateway in front of the target gave
// instead of the API (contract.GatewayAnswer): not the API's answer, so
// neither checked against the contract nor a server error of the API;
// whether the API got a payment it answered is not known, so the payment
// is reconciled as an uncertain one.
func gatewayAnswered(d *job, r *record.Result, resp *response) {
	g := resp.gateway
	r.Gateway = true
	r.Error = g.String()
	r.Exhibit = exhibitOf(d, resp, g.Error())
	if p := d.pay; p != nil {
		p.Outcome, p.Code, p.Message = record.OutcomeGateway, resp.code, r.Error
	}
}

// exhibitOf is the exhibit of the request of d and its answer resp, with
// the verdict on it (detail).
func exhibitOf(d *job, resp *response, detail string) *record.Exhibit {
	account := ""
	if d.pay != nil {
		account = d.pay.Account
	}
	h := http.Header{}
	for name, v := range map[string]string{"Content-Type": resp.contentType, "Server": resp.server, "Retry-After": resp.retryAfter} {
		if v != "" {
			h.Set(name, v)
		}
	}
	x := record.NewExhibit(d.call.method, d.call.url, account, d.call.body, resp.code, h, resp.body)
	x.Detail = detail
	return x
}

// timeoutOf is the client timeout of job j: the retry scenario's short one
// for its payments, the run's otherwise.
func (e *engine) timeoutOf(j job) time.Duration {
	if j.pay != nil && j.pay.Attempt > 0 {
		return e.cfg.RetryTimeout
	}
	return e.cfg.Timeout
}

// start counts the send of d, now: its number among its operation's sends,
// whether the generator is behind its schedule, and the requests in
// flight. (The result counts how late the send was.)
func (e *engine) start(d *job, scheduled time.Time) (sent time.Time, order uint64) {
	counter := e.order[d.call.op]
	if counter == nil { // an operation the engine did not number: share one counter
		counter = e.order[""]
	}
	e.orderMu.Lock()
	sent, order = time.Now(), *counter
	*counter++
	e.orderMu.Unlock()
	e.sent.Add(1)
	if sent.Sub(scheduled) > behindAfter*e.cfg.LateAfter {
		e.behind.mark(sent.Sub(e.began))
	}
	in := e.inFlight.Add(1)
	if e.cfg.MaxConnections > 0 && in > int64(e.cfg.MaxConnections) {
		e.connWaits.Add(1)
	}
	storeMax(&e.peakInFlight, in)
	return sent, order
}

// unanswered records a request of d, sent with timeout, that got no answer
// the checks can read.
func unanswered(d *job, r *record.Result, err error, timeout time.Duration) {
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
	r.Exhibit = record.NewExhibit(d.call.method, d.call.url, "", d.call.body, 0, nil, nil)
	r.Exhibit.Detail = contract.TransportError(err, timeout).Error()
	if d.pay != nil {
		r.Exhibit.Account = d.pay.Account
	}
	if d.pay == nil {
		return
	}
	d.pay.Outcome = record.OutcomeUncertain
	if r.NotDelivered {
		d.pay.Outcome = record.OutcomeNotDelivered
	}
	d.pay.Message = r.Error
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
	}
	hold, ok := contract.RetryAfter(resp.header(), at)
	if !ok {
		hold = throttle.DefaultWait
	}
	return hold
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
	// field. An answer that broke a rule already is counted under that
	// rule, as the answers that were not sampled are (one defect, one
	// rule: a transaction number without a slash breaks both), and the
	// schema's verdict names the field in its detail.
	if (ck.violation == "" || ck.created) && e.valid != nil && schemaSampled(r.Order) {
		var ae *contract.AnswerError
		if err := e.valid.ValidateBody(e.reqCtx, operationIDs[d.call.op], resp.code, resp.body); errors.As(err, &ae) {
			if ck.violation == "" {
				ck.violation = fmt.Sprintf("%s: HTTP %d: %s", d.call.op, resp.code, ae.Brief())
				ck.detail = fmt.Sprintf("%s: HTTP %d: %s", d.call.op, resp.code, ae.Error())
				ck.marks = ae.Marks(1)
			} else {
				ck.detail = ae.Brief() + "; " + ck.detail // the rule's sentence last
			}
		}
	}
	r.Violation = ck.violation
	if r.Violation != "" {
		r.Error = "contract: " + r.Violation
		r.Body = record.Truncate(resp.body, 512)
		if ck.detail == "" {
			ck.detail = r.Violation
		}
	}
	// A 5xx is allowed only as the system fault section 7 gives the
	// operation, with its message.
	r.Allowed = r.Violation == "" && contract.CheckNoServerFault(operationIDs[d.call.op], resp.code, ck.env.Message) == nil
	if d.call.op == record.OpCreate {
		r.Expected = e.created(d, resp.code, &ck)
	} else {
		r.Expected = resp.code == http.StatusOK
	}
	r.Expected = r.Expected && r.Violation == ""
	if !r.Expected && r.Error == "" {
		// An answer the scenario did not expect says why in its message:
		// keep it, as vegeta keeps an error, for the report's error set.
		r.Error = fmt.Sprintf("HTTP %d: %s", resp.code, ck.env.Message)
	}
	// The exhibit of an unexpected answer, and of a payment created for
	// an id that may be sent again (a wave's, a retry's): the collector
	// finds a second creation of its id (createdAgain).
	if p := d.pay; !r.Expected || p != nil && p.Outcome == record.OutcomeCreated && (d.wave || p.Attempt > 0) {
		r.Exhibit = exhibitOf(d, resp, cmp.Or(ck.detail, r.Error))
		r.Exhibit.Marks = ck.marks
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
	case code == http.StatusConflict:
		p.Outcome = record.OutcomeDuplicate
	case code >= 500:
		p.Outcome = record.OutcomeUncertain
	default:
		p.Outcome = record.OutcomeRefused
	}
	return p.Outcome == record.OutcomeCreated || ((d.wave || p.Attempt > 1) && p.Outcome == record.OutcomeDuplicate)
}

// record adds request j, sent by worker client, and its result r to the
// history.
func (e *engine) record(client int, j job, r *record.Result) {
	if e.hist == nil {
		return
	}
	op := record.HistoryOp{Client: client, Phase: record.PhaseAttack, Op: j.call.op, Invoke: record.Stamp(r.Timestamp), Code: int(r.Code), Error: r.Error}
	if !r.Uncertain {
		op.Return = record.Stamp(r.Timestamp.Add(r.Latency))
	}
	if p := j.pay; p != nil {
		op.Account, op.ID, op.Attempt, op.Outcome = p.Account, p.ID, p.Attempt, p.Outcome
		if p.Outcome == record.OutcomeCreated {
			op.Amount = p.Amount
		}
	}
	e.hist.Add(op)
}

// collect gathers results and delivers progress, which it reads from the
// run's tally.
func (e *engine) collect(results <-chan record.HitResult, began time.Time, done chan<- struct{}) {
	defer close(done)
	var tick <-chan time.Time
	if e.cfg.progress != nil && e.cfg.progressEvery > 0 {
		tk := time.NewTicker(e.cfg.progressEvery)
		defer tk.Stop()
		tick = tk.C
	}
	t := e.rec.Tally
	lastSent, lastAt := int64(0), began
	report := func(now time.Time, final bool) {
		sum := t.Totals()
		p := Progress{Elapsed: now.Sub(began), Sent: e.sent.Load(), Done: int64(sum.Requests), InFlight: e.inFlight.Load(),
			Final: final, Unexpected: int64(sum.Requests - sum.Expected - sum.Throttled), Throttled: int64(sum.Throttled), Violations: int64(t.Violations),
			CreatedAgain: e.createdAgain, Gateway: int64(sum.Gateway), FindsCreatedAgain: e.marks != nil,
			GatewayStopped: e.gatewayStopped(), Reconciles: e.cfg.reconciles() && !e.gatewayStopped()}
		p.BehindFrom, _ = e.behind.span()
		if final {
			lastSent, lastAt = 0, began
		}
		if d := now.Sub(lastAt).Seconds(); d > 0 {
			p.Rate = float64(p.Sent-lastSent) / d
		}
		recent := t.Timeline.Recent(lastAt)
		p.P50, p.P99 = recent.P50, recent.P99
		lastSent, lastAt = p.Sent, now
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
			e.keep(&hr)
		case now := <-tick:
			report(now, false)
		}
	}
}

// keep records hr, as the collector receives it: a payment created for an
// id an earlier answer created already is unexpected (createdAgain), and
// once the answers are mostly a gateway's the attack stops.
func (e *engine) keep(hr *record.HitResult) {
	if e.marks != nil && hr.Pay != nil {
		if hr.Pay.Outcome == record.OutcomeCreated && e.marks.createdBefore(hr.Pay) {
			e.createdAgain++
			createdAgain(hr)
		}
		e.marks.note(hr.Pay, len(e.cfg.Nemesis) > 0)
	}
	e.rec.Add(hr)
	if m := e.cfg.metrics; m != nil {
		m.Observe(&hr.Result, e.rec.Tally)
	}
	e.watchGateway(&hr.Result)
}

// createdAgain marks hr, a payment answered "created" for an id an
// earlier answer of the run created already: not the answer the scenario
// expects, nor one the document allows (a reused id is refused with 409).
// The ledger keeps it created: the reconciliation counts the id's
// creations.
func createdAgain(hr *record.HitResult) {
	r := &hr.Result
	r.Expected, r.Allowed, r.Error = false, false, record.ErrCreatedAgain
	detail := fmt.Sprintf("partner_trx_id %s was answered \"created\" again: an earlier answer of the run had created it (%s)", hr.Pay.ID, contract.SentenceUniqueTrxID)
	if r.Exhibit == nil {
		r.Exhibit = &record.Exhibit{Method: r.Method, URL: r.URL, Account: hr.Pay.Account, Status: int(r.Code)}
	}
	r.Exhibit.Detail = detail
}

// watchGateway counts r and stops the attack once the answers so far are
// mostly a gateway's (contract.MostlyGateway).
func (e *engine) watchGateway(r *record.Result) {
	if r.Uncertain || r.NotDelivered {
		return
	}
	e.answered++
	if r.Gateway {
		e.gateway++
	}
	if e.stoppedGateway == 0 && e.answered >= contract.GatewaySample && contract.MostlyGateway(int(e.gateway), int(e.answered)) {
		e.stoppedGateway = time.Since(e.began)
		close(e.gatewayStop)
	}
}

// gatewayStopped reports whether the attack stopped because its answers
// were mostly a gateway's.
func (e *engine) gatewayStopped() bool {
	select {
	case <-e.gatewayStop:
		return true
	default:
		return false
	}
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
