package loadtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// Profile reads of the history check: bounds of the interval at which each
// account is read.
const (
	minHistoryReadEvery = 5 * time.Millisecond
	maxHistoryReadEvery = time.Second
)

// checkHistory validates the settings of the history check.
func (c *config) checkHistory() error {
	switch c.Check {
	case "":
		return nil
	case record.CheckHistory:
	default:
		return fmt.Errorf("check %q: want %s", c.Check, record.CheckHistory)
	}
	if c.Scenario == ScenarioIdempotency {
		return fmt.Errorf("the history check runs with the create, mixed and retry scenarios, not %s", c.Scenario)
	}
	if !c.reconciles() {
		return errors.New("the history check needs the reconciliation (its status look-ups and last wallet reads)")
	}
	if c.Shard.Count > 1 {
		return errors.New("the history check needs every operation on an account: run it on one shard")
	}
	if c.HistoryReads < 0 {
		return errors.New("the history's read interval must not be negative")
	}
	return nil
}

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

// readWallet reads acct's wallet and records the read in h.
func readWallet(ctx context.Context, cl *client, h *record.History, acct Account, client int, phase string) (record.Wallet, error) {
	invoke := time.Now()
	// The reads during the attack are the history's samples: one the
	// target throttles is a read that failed, and holds off nothing (the
	// attack spends the target's allowance, not the reconciliation's).
	w, err := cl.wallet(ctx, acct.auth, phase != record.PhaseAttack)
	if h != nil {
		op := record.HistoryOp{Client: client, Phase: phase, Op: record.OpProfile, Account: acct.Key, Invoke: record.Stamp(invoke)}
		if err != nil {
			op.Error = err.Error()
		} else {
			op.Return, op.Code = record.Stamp(time.Now()), http.StatusOK
			op.Balance, op.Coins = &w.Balance, &w.Coins
		}
		h.Add(op)
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
