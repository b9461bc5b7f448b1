package loadtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
)

// deadAfter is how many look-ups in a row may get no answer at all before
// the reconciliation stops: the target is gone, and waiting out every
// look-up's timeout would only delay the report.
const deadAfter = 16

// reconcileProgress reports the look-ups made every progress interval
// until the returned function is called.
func (e *engine) reconcileProgress(done *atomic.Int64, total int) func() {
	c := e.cfg
	if c.progress == nil || c.progressEvery <= 0 || total == 0 {
		return func() {}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	began := time.Now()
	go func() {
		defer close(finished)
		tk := time.NewTicker(c.progressEvery)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				c.progress(Progress{Phase: PhaseReconcile, Elapsed: time.Since(began), LookedUp: done.Load(), ToLookUp: int64(total)})
			case <-stop:
				return
			}
		}
	}()
	return func() { close(stop); <-finished }
}

// lookups checks every created id of ledger through payment status, with a few
// workers, until ctx is done. It fills Payment.Lookup of the first created
// request of each id, and returns how many ids it did not get to (their
// Lookup stays nil, which reconciliation reports).
func (e *engine) lookups(ctx context.Context, accounts []Account, ledger []record.Payment) int {
	auths := map[string]string{}
	for _, a := range accounts {
		auths[a.Key] = a.auth
	}
	first := map[string]*record.Payment{}
	for i := range ledger {
		p := &ledger[i]
		if p.Outcome == record.OutcomeCreated && (first[p.ID] == nil || first[p.ID].Outcome != record.OutcomeCreated) {
			first[p.ID] = p
		}
	}
	everyID := len(e.cfg.nemesis) > 0
	for i := range ledger {
		p := &ledger[i]
		if first[p.ID] == nil && resolves(p, everyID) {
			first[p.ID] = p
		}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	work := make(chan *record.Payment)
	var wg sync.WaitGroup
	var done, failing atomic.Int64 // look-ups made; transport failures in a row
	stopProgress := e.reconcileProgress(&done, len(first))
	defer stopProgress()
	for range e.cfg.lookupWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				e.lookUpOne(ctx, stop, p, auths[p.Account], &done, &failing)
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
		if p.Lookup == nil && p.Outcome == record.OutcomeCreated {
			missed++
		}
	}
	return missed
}

func (e *engine) lookup(ctx context.Context, p *record.Payment, auth string) *record.Lookup {
	invoke := time.Now()
	r := e.cl.doTimed(ctx, e.cl.paymentStatus(auth, p.ID))
	op := record.HistoryOp{Client: e.cfg.firstOtherClient(), Phase: record.PhaseResolve, Op: record.OpStatus, Account: p.Account, ID: p.ID, Invoke: record.Stamp(invoke)}
	defer func() { e.hist.Add(op) }()
	if r.err != nil {
		op.Error = errorText(r.err)
		return &record.Lookup{Error: errorText(r.err), Transport: true}
	}
	op.Return, op.Code = record.Stamp(time.Now()), r.code
	l := &record.Lookup{Code: r.code}
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
	l.Amount, l.TransactionNumber, l.ProductID = &a, env.Data.TransactionNumber, env.Data.Product.ID
	op.Amount = &a
	return l
}
