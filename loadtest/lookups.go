package loadtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
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

// lookup looks payment p up through payment status, and records the
// look-up in the history.
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
