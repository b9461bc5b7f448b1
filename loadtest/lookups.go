package loadtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// lookups checks every created id of ledger through payment status, with a few
// workers, until ctx is done. It fills Payment.Lookup of the first created
// request of each id, and returns how many ids it did not get to (their
// Lookup stays nil, which reconciliation reports).
func (e *engine) lookups(ctx context.Context, accounts []Account, ledger []Payment) int {
	auths := map[string]string{}
	for _, a := range accounts {
		auths[a.Key] = a.auth
	}
	first := map[string]*Payment{}
	for i := range ledger {
		p := &ledger[i]
		if p.Outcome == OutcomeCreated && (first[p.ID] == nil || first[p.ID].Outcome != OutcomeCreated) {
			first[p.ID] = p
		}
	}
	// An id no request was answered "created" for, but whose answer was
	// lost (or that a retry found used), is resolved through payment status
	// too: created once, or never created.
	for i := range ledger {
		p := &ledger[i]
		if first[p.ID] == nil && (p.Outcome == OutcomeUncertain || (p.Outcome == OutcomeDuplicate && p.Attempt > 1)) {
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
		if p.Lookup == nil && p.Outcome == OutcomeCreated {
			missed++
		}
	}
	return missed
}

func (e *engine) lookup(ctx context.Context, p *Payment, auth string) *Lookup {
	invoke := time.Now()
	r := e.cl.doTimed(ctx, e.cl.paymentStatus(auth, p.ID))
	op := Operation{Client: e.cfg.firstOtherClient(), Phase: PhaseResolve, Op: OpStatus, Account: p.Account, ID: p.ID, Invoke: stamp(invoke)}
	defer func() { e.hist.add(op) }()
	if r.err != nil {
		op.Error = errorText(r.err)
		return &Lookup{Error: errorText(r.err)}
	}
	op.Return, op.Code = stamp(time.Now()), r.code
	l := &Lookup{Code: r.code}
	var env statusEnvelope
	if err := json.Unmarshal(r.body, &env); err != nil {
		if r.code != http.StatusOK {
			return l
		}
		l.Error = "status body does not decode: " + err.Error()
		return l
	}
	l.Message = env.Message
	if r.code != http.StatusOK {
		return l
	}
	if env.Data.PartnerTrxID != p.ID {
		l.Error = "status answered for partner_trx_id " + strconv.Quote(env.Data.PartnerTrxID)
		return l
	}
	a := env.Data.Amount
	l.Amount, l.TransactionNumber = &a, env.Data.TransactionNumber
	op.Amount = &a
	return l
}
