package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// seqMarks is a byte per sequence number of a run's payment requests: what
// the look-ups after the attack need in memory to choose, as they read the
// ledger file, which request of each id to look up. A reconciled run keeps
// this instead of its ledger.
type seqMarks []byte

const (
	markCreated byte = 1 << iota // a request of this sequence number was answered "created"
	markResolve                  // one needs resolving through payment status (see resolves)
	markChosen                   // on an id's first sequence number: its look-up is chosen
)

// newSeqMarks returns the marks of a run of load lp, sized for its
// schedule (its sequence numbers count its requests), so that a long run's
// do not grow by doubling; a max-rate run's grow as they must.
func newSeqMarks(lp pacing.LoadProfile) *seqMarks {
	m := seqMarks{}
	if !lp.Unbounded() {
		m = make(seqMarks, int(min(lp.Expected()*1.02, maxPresized))+64)
	}
	return &m
}

// maxPresized bounds the marks made up front (about 1.8 hours at
// 5,000/s): they are live heap from the start, and at GOGC 400 each byte
// of it lets the collector leave four more of garbage.
const maxPresized = 1 << 25

// note marks the request p, as the collector receives it; everyID is a run
// under faults, which looks every id up.
func (m *seqMarks) note(p *record.Payment, everyID bool) {
	if p.Seq >= uint64(len(*m)) {
		grown := make(seqMarks, max(p.Seq+1, 2*uint64(len(*m)), 1024))
		copy(grown, *m)
		*m = grown
	}
	switch {
	case p.Outcome == record.OutcomeCreated:
		(*m)[p.Seq] |= markCreated
	case resolves(p, everyID):
		(*m)[p.Seq] |= markResolve
	}
}

// resolves reports whether p, not created, makes its id one to look up: an
// id no request was answered "created" for, but whose answer was lost (or
// that a retry found used), is resolved through payment status: created
// once, or never created. Under faults every id is looked up: one refused,
// or never delivered, that payment status finds was resurrected.
func resolves(p *record.Payment, everyID bool) bool {
	return everyID || p.Outcome == record.OutcomeUncertain || (p.Outcome == record.OutcomeDuplicate && p.Attempt > 1)
}

func (m seqMarks) at(s uint64) byte {
	if s < uint64(len(m)) {
		return m[s]
	}
	return 0
}

// idSeqs is the range of sequence numbers of p's id: a wave's N requests
// share one id, numbered from a multiple of N; every other id has one
// sequence number (a retry's sends share it).
func idSeqs(p *record.Payment) (first, end uint64) {
	if p.Wave > 0 {
		first = p.Seq - p.Seq%uint64(p.Wave)
		return first, first + uint64(p.Wave)
	}
	return p.Seq, p.Seq + 1
}

// choose reports whether p is the request of its id to look up, and marks
// the id chosen: the created request with the lowest sequence number (the
// one reconciliation checks), or, when none was created, the first that
// resolves.
func (m seqMarks) choose(p *record.Payment, everyID bool) bool {
	first, end := idSeqs(p)
	if first >= uint64(len(m)) || m[first]&markChosen != 0 {
		return false
	}
	if p.Outcome == record.OutcomeCreated {
		end = p.Seq // a created request with a lower number is the one
	} else if !resolves(p, everyID) {
		return false
	}
	for s := first; s < end; s++ {
		if m.at(s)&markCreated != 0 {
			return false
		}
	}
	m[first] |= markChosen
	return true
}

// toLookUp counts the ids the marks will have looked up.
func (m seqMarks) toLookUp(wave int) int {
	step := uint64(max(wave, 1))
	n := 0
	for first := uint64(0); first < uint64(len(m)); first += step {
		for s := first; s < min(first+step, uint64(len(m))); s++ {
			if m[s]&(markCreated|markResolve) != 0 {
				n++
				break
			}
		}
	}
	return n
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
	tmp := path + ".looked-up"
	out, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.Remove(tmp) }() // gone once renamed
	ordered := make(chan *pending, lookupWindow)
	written := make(chan error, 1)
	go func() { written <- writeLookedUp(out, ordered, &missed) }()
	lookErr := e.lookUpEach(ctx, auths, marks, path, ordered)
	close(ordered)
	if err := errors.Join(lookErr, <-written, out.Close()); err != nil {
		return 0, err
	}
	return missed, os.Rename(tmp, path)
}

// writeLookedUp writes each entry of ordered once it is done, counting the
// created ids chosen but not looked up.
func writeLookedUp(out *os.File, ordered <-chan *pending, missed *int) error {
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
	stopProgress := e.reconcileProgress(&done, marks.toLookUp(e.cfg.WaveSize))
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
