package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// gatherAfter gathers what the reconciliation needs after the attack: the
// created payments' status look-ups and the wallets after. It runs even
// when ctx was cancelled, bounded by its own deadline: what is not looked
// up or read by then is not reconciled, which is a violation. It fails
// only when the ledger file cannot be read or rewritten.
func (s *session) gatherAfter(ctx context.Context, e *engine, run *record.Run, dir string) error {
	c := s.c
	post, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.ReconcileTimeout)
	defer cancel()
	if dead := e.awaitTarget(post, s.accounts[0].auth, c.targetWait()); dead != "" {
		c.logger.Warn(dead)
		run.Meta.ReconcileStopped = dead
		cancel() // nothing more is looked up or read
	}
	missed, err := e.lookupFile(post, s.accounts, *e.marks, filepath.Join(dir, record.FileLedger))
	if err != nil {
		return err
	}
	switch dead := e.deadAt.Load(); {
	case dead != nil:
		run.Meta.ReconcileStopped = fmt.Sprintf("the target stopped answering during reconciliation (%d look-ups in a row: %s): stopped trying; %d created ids left unreconciled", deadAfter, *dead, missed)
		c.logger.Warn(run.Meta.ReconcileStopped)
		cancel()
	case missed > 0 && run.Meta.ReconcileStopped == "":
		c.logger.Warn("reconciliation timed run; created ids left unreconciled", "timeout", c.ReconcileTimeout, "ids", missed)
	}
	for i, a := range s.accounts {
		if s.snaps[i].Error != "" {
			continue
		}
		w, err := readWallet(post, s.cl, s.hist, a, c.firstOtherClient()+i, record.PhaseAfter)
		if err != nil {
			s.snaps[i].Error = err.Error()
			continue
		}
		s.snaps[i].After = &w
	}
	run.Accounts = s.snaps
	if run.Meta.ReconcileStopped != "" {
		run.Meta.Reconciled = false // what it could not check fails as not reconciled
	}
	return nil
}

// awaitTarget waits, up to wait, for the target to answer anything at all
// (a payment status of an id no run uses): after a fault, a restarted
// server may take a moment to listen again. It returns "" once the target
// answers, and otherwise one line saying it does not, which stops the
// reconciliation rather than spending its whole timeout on look-ups that
// cannot succeed.
func (e *engine) awaitTarget(ctx context.Context, auth string, wait time.Duration) string {
	start := time.Now()
	deadline := start.Add(wait)
	probe := e.cl.paymentStatus(auth, "probe-"+e.cfg.RunID)
	for tries := 0; ; tries++ {
		r := e.cl.doTimed(ctx, probe)
		r.release()
		if r.err == nil {
			return ""
		}
		if tries == 0 && wait > 0 {
			e.cfg.logger.Warn(fmt.Sprintf("the target does not answer after the attack (%s): waiting up to %s for it to come back before reconciling",
				errorText(r.err), readable.Duration(wait)))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Sprintf("the target did not answer at reconciliation time (%s, tried for %s): nothing was looked up or read",
				errorText(r.err), readable.Duration(time.Since(start)))
		}
		t := time.NewTimer(200 * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

// targetWait is how long reconciliation waits for the target to answer:
// long enough for a server restarted by the last fault to come back.
func (c *config) targetWait() time.Duration {
	if len(c.Nemesis) > 0 {
		return min(30*time.Second, c.ReconcileTimeout)
	}
	return min(2*time.Second, c.ReconcileTimeout)
}

// deadAfter is how many look-ups in a row may get no answer at all before
// the reconciliation stops: the target is gone, and waiting out every
// look-up's timeout would only delay the report.
const deadAfter = 16

// lookupFile checks the created ids of the ledger file path through
// payment status, with a few workers, until ctx is done: it reads the
// file one entry at a time, looks up what the marks choose (the first
// created request of each id, and the ids to resolve), and writes every
// entry, in the same order, with its look-up (Payment.Lookup), to a file
// that then replaces path. It returns how many created ids it did not get
// to (their Lookup stays nil, which reconciliation reports).
func (e *engine) lookupFile(ctx context.Context, accounts []Account, marks seqMarks, path string) (missed int, err error) {
	auths := map[string]string{}
	for _, a := range accounts {
		auths[a.Key] = a.auth
	}
	err = atomicfile.Write(path, func(out io.Writer) error {
		ordered := make(chan *pending, lookupWindow)
		written := make(chan error, 1)
		go func() { written <- writeLookedUp(out, ordered, &missed) }()
		lookErr := e.lookUpEach(ctx, auths, marks, path, ordered)
		close(ordered)
		return errors.Join(lookErr, <-written)
	})
	if err != nil {
		return 0, err
	}
	return missed, nil
}

// pending is a ledger entry on its way from the reader to the writer of
// lookupFile, through a look-up worker when chosen; done is closed when
// it may be written.
type pending struct {
	p      *record.Payment
	chosen bool
	done   chan struct{}
}

// lookupWindow bounds the entries between lookupFile's reader and writer.
const lookupWindow = 4096

// writeLookedUp writes each entry of ordered once it is done, counting the
// created ids chosen but not looked up.
func writeLookedUp(out io.Writer, ordered <-chan *pending, missed *int) error {
	w := bufio.NewWriterSize(out, 256<<10) // as the recorder writes it
	var line []byte
	var err error
	for pd := range ordered {
		<-pd.done
		if pd.chosen && pd.p.Lookup == nil && pd.p.Outcome == record.OutcomeCreated {
			*missed++
		}
		if err == nil {
			if line, err = record.AppendLedgerLine(line[:0], pd.p); err == nil {
				_, err = w.Write(line)
			}
		}
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// lookUpEach reads the ledger file path and hands each entry to ordered,
// through a look-up worker when the marks choose it, until ctx is done;
// past that, entries pass without a look-up.
func (e *engine) lookUpEach(ctx context.Context, auths map[string]string, marks seqMarks, path string, ordered chan<- *pending) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var done atomic.Int64
	total := marks.toLookUp()
	stopProgress := e.reconcileProgress(&done, total)
	if m := e.cfg.metrics; m != nil {
		m.Reconciling(done.Load, int64(total))
	}
	defer stopProgress()
	work := make(chan *pending)
	var wg sync.WaitGroup
	var failing atomic.Int64 // transport failures in a row
	for range lookupWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pd := range work {
				e.lookUpOne(ctx, stop, pd.p, auths[pd.p.Account], &done, &failing)
				close(pd.done)
			}
		}()
	}
	everyID := len(e.cfg.Nemesis) > 0
	err := record.ReadLedgerFile(path, func(p *record.Payment) error {
		pd := &pending{p: p, chosen: marks.choose(p, everyID), done: make(chan struct{})}
		ordered <- pd
		if !pd.chosen || ctx.Err() != nil {
			close(pd.done)
			return nil
		}
		select {
		case work <- pd:
		case <-ctx.Done():
			close(pd.done)
		}
		return nil
	})
	close(work)
	wg.Wait()
	if err != nil {
		return fmt.Errorf("looking up the ledger: %w", err)
	}
	return nil
}

// lookUpOne looks p up and keeps the answer in p.Lookup, unless ctx cut it
// off; after deadAfter transport failures in a row it records that the
// target stopped answering and stops the look-ups.
func (e *engine) lookUpOne(ctx context.Context, stop func(), p *record.Payment, auth string, done, failing *atomic.Int64) {
	l := e.lookup(ctx, p, auth)
	if l.Error != "" && ctx.Err() != nil {
		return // cut off by the deadline: not looked up
	}
	done.Add(1)
	p.Lookup = l
	if !l.Transport {
		failing.Store(0)
	} else if failing.Add(1) == deadAfter {
		e.deadAt.Store(&l.Error)
		stop() // the target stopped answering: stop trying
	}
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
		var g contract.Gateway
		return &record.Lookup{Error: errorText(r.err), Transport: true, Gateway: errors.As(r.err, &g)}
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
