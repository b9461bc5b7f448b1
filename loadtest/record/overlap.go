package record

import (
	"maps"
	"slices"
	"sort"
	"time"
)

// OverlapTally counts, from the send and answer times of the ledger's
// create requests, the overlap a run reached where the rules need it: for
// each account, the most of its payments in flight at once, which the
// wallet rules need to be put to the test (no debit lost to a concurrent
// write of the wallet, none beyond it: a server that debits by read and
// write back loses a debit to a gateway payment's write as well as to
// another debit's); for each partner_trx_id an idempotency wave reuses on
// purpose, the most of its requests in flight at once, which the
// duplicate check needs. A request is in flight from
// its send to its answer (or to its timeout, without one); one that never
// reached the server (not delivered) or was throttled is not counted.
//
// It keeps only the requests that a later one can still overlap: those
// that ended within overlapHorizon of the latest answer it has seen, so
// that its size does not grow with the run's length. The collector records
// the answers in the order they come, so a request recorded later ended
// after, or a moment before, the latest, and started at most its timeout
// before its end: the figures are exact when no request was in flight
// longer than about a minute (the timeout is 5 s unless --timeout says).
// A merge reads its shards one after the other, each from its start: its
// figures are at least each shard's.
type OverlapTally struct {
	accounts map[string]*overlapKey
	ids      map[string]*overlapKey
	waves    WaveOverlap
	latest   int64 // the latest answer seen, Unix nanoseconds
	added    int   // requests added since the last sweep of the ids
}

// overlapHorizon is how long the tally keeps a request after the latest
// answer it has seen.
const overlapHorizon = time.Minute

// idSweepEvery is how many requests the tally adds between two sweeps of
// its waves, which end the ids no later request can overlap.
const idSweepEvery = 1024

// AccountOverlap is the overlap of one account's payments.
type AccountOverlap struct {
	Account string `json:"account"`
	// Payments counts the account's payment requests; Debits those of
	// them that pay with balance or coins.
	Payments int `json:"payments"`
	Debits   int `json:"debits"`
	// Peak is the most payments in flight at once.
	Peak int `json:"peak_in_flight"`
	// Overlapping counts the payments sent while another of the account
	// was in flight (or sent at the same instant).
	Overlapping int `json:"overlapping"`
}

// WaveOverlap sums up the overlap of the partner_trx_ids reused on purpose
// (an idempotency wave's): each id's most requests in flight at once.
type WaveOverlap struct {
	IDs int `json:"ids"`
	// Overlapped counts the ids that had two requests or more in flight at
	// once.
	Overlapped int `json:"overlapped"`
	// LeastPeak and MostPeak are the least and the most of the ids' peaks.
	LeastPeak int `json:"least_peak_in_flight"`
	MostPeak  int `json:"most_peak_in_flight"`
}

// overlapKey is the requests of one account or id the tally still keeps,
// sorted by send time, and what it counted of them.
type overlapKey struct {
	spans       []span // from head on, sorted by start
	head        int
	longest     int64 // the longest request kept or ended, nanoseconds
	requests    int
	debits      int // of an account: its balance and coin payments
	peak        int
	overlapping int // of the requests no longer kept
}

// span is a request in flight from start to end (Unix nanoseconds, end
// excluded), and how many requests were in flight at its start, itself
// included.
type span struct {
	start, end int64
	cover      int
}

// add counts ledger entry p.
func (o *OverlapTally) add(p *Payment) {
	if p.At.IsZero() || p.Outcome == OutcomeNotDelivered || p.Outcome == OutcomeThrottled {
		return
	}
	start := p.At.UnixNano()
	end := start + max(int64(p.Latency), 1)
	if end < o.watermark() {
		o.latest = end // the next shard of a merge, from its start
	}
	o.latest = max(o.latest, end)
	if o.accounts == nil {
		o.accounts = map[string]*overlapKey{}
	}
	acct := o.keyOf(o.accounts, p.Account)
	acct.add(start, end, o.watermark())
	if p.Kind == KindBalance || p.Kind == KindCoins {
		acct.debits++
	}
	if p.Wave > 0 {
		if o.ids == nil {
			o.ids = map[string]*overlapKey{}
		}
		o.keyOf(o.ids, p.ID).add(start, end, o.watermark())
		if o.added++; o.added >= idSweepEvery {
			o.added = 0
			o.sweepIDs(o.watermark())
		}
	}
}

func (o *OverlapTally) keyOf(keys map[string]*overlapKey, name string) *overlapKey {
	k := keys[name]
	if k == nil {
		k = &overlapKey{}
		keys[name] = k
	}
	return k
}

// watermark is the time before which every request the tally is still to
// see started: no request ending before it can overlap them.
func (o *OverlapTally) watermark() int64 {
	return o.latest - int64(overlapHorizon)
}

// sweepIDs ends the waves' ids whose every request ended before
// watermark: no later request can overlap them.
func (o *OverlapTally) sweepIDs(watermark int64) {
	for id, k := range o.ids {
		if k.drop(watermark); k.head == len(k.spans) {
			o.waves.fold(k)
			delete(o.ids, id)
		}
	}
}

// add adds the request in flight from start to end, and forgets those
// that ended before watermark.
func (k *overlapKey) add(start, end, watermark int64) {
	k.requests++
	k.longest = max(k.longest, end-start)
	kept := k.spans[k.head:]
	i := k.head + sort.Search(len(kept), func(i int) bool { return kept[i].start > start })
	s := span{start: start, end: end, cover: 1}
	// The requests sent before it (or at the same instant) still in
	// flight at its start: none sent longer ago than the longest.
	for j := i - 1; j >= k.head && k.spans[j].start >= start-k.longest; j-- {
		if k.spans[j].end > start {
			s.cover++
		}
	}
	// The requests sent while it was in flight (or at its instant) find it
	// in flight.
	for j := i; j < len(k.spans) && k.spans[j].start < end; j++ {
		k.spans[j].cover++
		k.peak = max(k.peak, k.spans[j].cover)
	}
	for j := i - 1; j >= k.head && k.spans[j].start == start; j-- {
		k.spans[j].cover++
		k.peak = max(k.peak, k.spans[j].cover)
	}
	k.peak = max(k.peak, s.cover)
	k.spans = slices.Insert(k.spans, i, s)
	k.drop(watermark)
}

// drop forgets the first requests that ended before watermark, counting
// those that overlapped another.
func (k *overlapKey) drop(watermark int64) {
	for k.head < len(k.spans) && k.spans[k.head].end <= watermark {
		if k.spans[k.head].cover > 1 {
			k.overlapping++
		}
		k.head++
	}
	if k.head > 0 && k.head >= len(k.spans)/2 {
		k.spans = append(k.spans[:0], k.spans[k.head:]...)
		k.head = 0
	}
}

// overlappingAll counts the requests that overlapped another, kept or not.
func (k *overlapKey) overlappingAll() int {
	n := k.overlapping
	for _, s := range k.spans[k.head:] {
		if s.cover > 1 {
			n++
		}
	}
	return n
}

// fold counts id k's peak in w.
func (w *WaveOverlap) fold(k *overlapKey) {
	if w.IDs == 0 || k.peak < w.LeastPeak {
		w.LeastPeak = k.peak
	}
	w.IDs++
	w.MostPeak = max(w.MostPeak, k.peak)
	if k.peak > 1 {
		w.Overlapped++
	}
}

// Accounts is the overlap of each account's payments, by account.
func (o *OverlapTally) Accounts() []AccountOverlap {
	var out []AccountOverlap
	for _, name := range slices.Sorted(maps.Keys(o.accounts)) {
		k := o.accounts[name]
		out = append(out, AccountOverlap{Account: name, Payments: k.requests, Debits: k.debits, Peak: k.peak, Overlapping: k.overlappingAll()})
	}
	return out
}

// Waves is the overlap of the ids the run's waves reused; IDs is 0 when
// it sent no wave.
func (o *OverlapTally) Waves() WaveOverlap {
	w := o.waves
	for _, k := range o.ids {
		w.fold(k)
	}
	return w
}
