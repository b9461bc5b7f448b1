package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// FileHistory is the operation history of a run (--check history): one
// JSON line per request, written next to the report.
const FileHistory = "history.jsonl"

// Phases of a run in which an operation was made.
const (
	PhaseBefore  = "before"  // wallet reads before the attack
	PhaseAttack  = "attack"  // the scenario's requests and the history's profile reads
	PhaseResolve = "resolve" // payment status look-ups after the attack
	PhaseAfter   = "after"   // wallet reads after the attack
)

// Operation is one request of a run as the history records it: who sent
// it, what it asked, when it was invoked and when its answer came back,
// and the answer as far as the history check needs it.
type Operation struct {
	// Client is who sent it: the worker (or reader) that made the request.
	Client  int    `json:"client"`
	Phase   string `json:"phase"`
	Op      string `json:"op"` // OpCreate, OpProfile, OpStatus, ...
	Account string `json:"account,omitempty"`
	// ID is the partner_trx_id of a payment creation or status look-up.
	ID string `json:"partner_trx_id,omitempty"`
	// Attempt counts the sends of one partner_trx_id by the retry
	// scenario, from 1; 0 elsewhere.
	Attempt int `json:"attempt,omitempty"`
	// Invoke and Return are Unix nanoseconds. Return is 0 when no answer
	// came back (timeout, lost connection).
	Invoke int64 `json:"invoke"`
	Return int64 `json:"return,omitempty"`
	Code   int   `json:"code,omitempty"`
	// Outcome is the ledger's outcome of a payment creation.
	Outcome string `json:"outcome,omitempty"`
	// Amount is the amount of a created payment, or of a payment found
	// through payment status.
	Amount *Amount `json:"amount,omitempty"`
	// Balance and Coins are what a profile read answered.
	Balance *int64 `json:"balance,omitempty"`
	Coins   *int64 `json:"coins,omitempty"`
	Error   string `json:"error,omitempty"`
}

// answered reports whether an answer came back.
func (o *Operation) answered() bool { return o.Return != 0 }

// History collects the operations of a run; safe for concurrent use. A nil
// *History records nothing, so that a run without the history check pays
// nothing for it.
type History struct {
	mu  sync.Mutex
	ops []Operation
}

// add records op.
func (h *History) add(op Operation) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// Operations returns a copy of the recorded operations: nil for a nil
// *History, never nil otherwise (a history may record nothing).
func (h *History) Operations() []Operation {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(make([]Operation, 0, len(h.ops)), h.ops...)
}

// stamp returns t in Unix nanoseconds.
func stamp(t time.Time) int64 { return t.UnixNano() }

// WriteHistory writes ops as JSON lines.
func WriteHistory(w io.Writer, ops []Operation) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range ops {
		if err := enc.Encode(&ops[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadHistory reads JSON lines written by WriteHistory.
func ReadHistory(r io.Reader) ([]Operation, error) {
	dec := json.NewDecoder(r)
	var out []Operation
	for {
		var op Operation
		err := dec.Decode(&op)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("history operation %d: %w", len(out)+1, err)
		}
		out = append(out, op)
	}
}

// WithHistory turns the history check on (create, mixed and retry
// scenarios): every operation of the run is recorded, the accounts'
// profiles are read during the attack, and after the run the history is
// checked for linearizability per account (CheckHistory).
func WithHistory(on bool) Option { return func(c *config) { c.history = on } }

// WithHistoryTimeout bounds the history check after the run.
func WithHistoryTimeout(d time.Duration) Option { return func(c *config) { c.historyTimeout = d } }

// WithHistoryReads sets how often each account's profile is read during
// the attack of a run with the history check; 0 derives it from the rate.
func WithHistoryReads(every time.Duration) Option {
	return func(c *config) { c.historyReadEvery = every }
}

// Profile reads of the history check: bounds of the interval at which each
// account is read.
const (
	minHistoryReadEvery = 5 * time.Millisecond
	maxHistoryReadEvery = time.Second
)

// checkHistoryConfig validates the options of the history check.
func (c *config) checkHistoryConfig() error {
	if !c.history {
		return nil
	}
	switch c.scenario {
	case ScenarioCreate, ScenarioMixed, ScenarioRetry:
	default:
		return fmt.Errorf("the history check runs with the create, mixed and retry scenarios, not %s", c.scenario)
	}
	if !c.reconcile {
		return errors.New("the history check needs the reconciliation (its status look-ups and last wallet reads)")
	}
	if c.shard.Count > 1 {
		return errors.New("the history check needs every operation on an account: run it on one shard")
	}
	if c.historyTimeout <= 0 || c.historyReadEvery < 0 {
		return errors.New("the history timeout must be above 0 and the read interval not negative")
	}
	return nil
}

// readEvery is the interval of each account's profile reads: about one
// read for every five requests of the run, spread over the accounts.
func (c *config) readEvery(accounts int) time.Duration {
	if c.historyReadEvery > 0 {
		return c.historyReadEvery
	}
	rate := c.load.Rate
	if rate <= 0 {
		rate = 1000
	}
	every := time.Duration(float64(time.Second) * float64(5*accounts) / rate)
	return min(max(every, minHistoryReadEvery), maxHistoryReadEvery)
}

// readWallet reads acct's wallet and records the read in h.
func readWallet(ctx context.Context, cl *client, h *History, acct Account, client int, phase string) (Wallet, error) {
	invoke := time.Now()
	w, err := cl.wallet(ctx, acct.auth)
	if h != nil {
		op := Operation{Client: client, Phase: phase, Op: OpProfile, Account: acct.Key, Invoke: stamp(invoke)}
		if err != nil {
			op.Error = err.Error()
		} else {
			op.Return, op.Code = stamp(time.Now()), http.StatusOK
			op.Balance, op.Coins = &w.Balance, &w.Coins
		}
		h.add(op)
	}
	return w, err
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
				ctx, cancel := context.WithTimeout(e.reqCtx, e.cfg.timeout)
				_, _ = readWallet(ctx, e.cl, e.hist, a, e.cfg.firstOtherClient()+i, PhaseAttack) // a failed read is recorded and checks nothing
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

// record adds request j, sent by worker client, and its result r to the
// history.
func (e *engine) record(client int, j job, r *Result) {
	if e.hist == nil {
		return
	}
	op := Operation{Client: client, Phase: PhaseAttack, Op: j.call.op, Invoke: stamp(r.Timestamp), Code: int(r.Code), Error: r.Error}
	if !r.Uncertain {
		op.Return = stamp(r.Timestamp.Add(r.Latency))
	}
	if p := j.pay; p != nil {
		op.Account, op.ID, op.Attempt, op.Outcome = p.Account, p.ID, p.Attempt, p.Outcome
		if p.Outcome == OutcomeCreated {
			op.Amount = p.Amount
		}
	}
	e.hist.add(op)
}
