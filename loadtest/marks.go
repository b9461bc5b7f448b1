package loadtest

import (
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// seqMarks is a byte per sequence number of a run's payment requests: what
// the look-ups after the attack need in memory to choose, as they read the
// ledger file, which request of each id to look up, and what the collector
// needs to find an id created again as its answer comes. A reconciled run,
// and a run that sends ids again, keeps this instead of its ledger.
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
// 5,000/s): they are live heap from the start, and at gcPercent (150) each byte
// of it lets the collector leave 1.5 more of garbage.
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
// id no request was answered "created" for, but whose answer was lost, or
// came from a gateway (or that a retry found used), is resolved through
// payment status: created once, or never created. Under faults every id is looked up: one refused,
// or never delivered, that payment status finds was resurrected.
func resolves(p *record.Payment, everyID bool) bool {
	return everyID || p.Outcome == record.OutcomeUncertain || p.Outcome == record.OutcomeGateway || (p.Outcome == record.OutcomeDuplicate && p.Attempt > 1)
}

// createdBefore reports whether a request of p's id other than p was
// answered "created" before p's answer came (the collector notes p after
// asking).
func (m seqMarks) createdBefore(p *record.Payment) bool {
	first, end := idSeqs(p)
	for s := first; s < end; s++ {
		if m.at(s)&markCreated != 0 {
			return true
		}
	}
	return false
}

func (m seqMarks) at(s uint64) byte {
	if s < uint64(len(m)) {
		return m[s]
	}
	return 0
}

// idSeqs is the range of sequence numbers of p's id: one, which the
// requests of a wave (and a retry's sends) share.
func idSeqs(p *record.Payment) (first, end uint64) {
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
func (m seqMarks) toLookUp() int {
	n := 0
	for _, b := range m {
		if b&(markCreated|markResolve) != 0 {
			n++
		}
	}
	return n
}
