package loadtest

import (
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Tally is what a run keeps in memory of its results and ledger while they
// stream to results.bin and ledger.jsonl: the counts, the latency
// histograms, the error set, the refusals of empty wallets, the charts'
// time buckets and a sample for the plot. Its size does not grow with the
// number of requests (the distinct operations, status codes, contract rules
// and shards are few), so a run can last hours; the reports read it.
type Tally struct {
	requests int // the per-outcome counts are the sums of ops (totals)

	ops       map[string]*opTally
	corrected histogram // from the scheduled send
	raw       histogram // from the actual send
	vegeta    *vegeta.Metrics

	violations int
	byRule     map[string]int

	errors   errorTally
	refusals refusalTally
	timeline *timeline
	shards   map[int]*shardTally
	merged   bool // results of several shards: count each shard apart
	plot     plotSample
}

type opTally struct {
	Op
	corrected histogram
}

// shardTally is what the page shows of each shard of a merged run.
type shardTally struct {
	requests    int
	first, last time.Time
	corrected   histogram
}

// maxRules bounds the distinct contract rules counted one by one; the rest
// are counted under otherRules.
const (
	maxRules   = 200
	otherRules = "(other rules, past the first 200)"
)

// newTally returns an empty tally whose charts start at start and suit a
// run of about span; merged counts each shard apart.
func newTally(start time.Time, span time.Duration, merged bool) *Tally {
	return &Tally{ops: map[string]*opTally{}, byRule: map[string]int{}, vegeta: &vegeta.Metrics{},
		timeline: newTimeline(start, span), shards: map[int]*shardTally{}, merged: merged}
}

// totals sums the per-operation counts: what the whole run was answered.
func (t *Tally) totals() Op {
	var sum Op
	for _, op := range t.ops {
		sum.Expected += op.Expected
		sum.Allowed += op.Allowed
		sum.ServerErrors += op.ServerErrors
		sum.Uncertain += op.Uncertain
		sum.NotDelivered += op.NotDelivered
	}
	return sum
}

// add counts result r.
func (t *Tally) add(r *Result) {
	t.requests++
	vr := r.Result
	vr.Headers, vr.Body = nil, nil
	t.vegeta.Add(&vr)
	corrected := r.Corrected()
	t.corrected.add(corrected)
	t.raw.add(r.Latency)
	op := t.ops[r.Op]
	if op == nil {
		op = &opTally{}
		t.ops[r.Op] = op
	}
	op.Requests++
	op.corrected.add(corrected)
	if r.Expected {
		op.Expected++
	}
	if r.Allowed {
		op.Allowed++
	}
	if r.serverError() {
		op.ServerErrors++
	}
	if r.Uncertain {
		op.Uncertain++
	}
	if r.NotDelivered {
		op.NotDelivered++
	}
	if r.Violation != "" {
		op.Violations++
		t.violations++
		rule := r.Violation
		if _, ok := t.byRule[rule]; !ok && len(t.byRule) >= maxRules {
			rule = otherRules
		}
		t.byRule[rule]++
	}
	t.errors.add(r)
	t.timeline.add(r, t.merged)
	if t.merged {
		s := t.shards[r.Shard]
		if s == nil {
			s = &shardTally{first: r.Timestamp, last: r.Timestamp}
			t.shards[r.Shard] = s
		}
		s.requests++
		if r.Timestamp.Before(s.first) {
			s.first = r.Timestamp
		}
		if r.Timestamp.After(s.last) {
			s.last = r.Timestamp
		}
		s.corrected.add(corrected)
	}
	t.plot.add(r)
}

// Requests is the number of results counted.
func (t *Tally) Requests() int { return t.requests }

// close ends the counting: vegeta's metrics are computed.
func (t *Tally) close() { t.vegeta.Close() }

// addPayment counts ledger entry p (the refusals of empty wallets).
func (t *Tally) addPayment(p *Payment) { t.refusals.add(p) }

// refusalTally counts the balance and coin payments refused with 422, for
// exhaustion: what it needs of the ledger.
type refusalTally struct {
	answered, refused int
	first             time.Time
	messages          map[string]int // bounded: past maxRefusalMessages, new ones are not counted
}

const maxRefusalMessages = 100

func (x *refusalTally) add(p *Payment) {
	if p.Kind == KindGateway || p.Outcome == OutcomeUncertain || p.Outcome == OutcomeNotDelivered {
		return
	}
	x.answered++
	if p.Outcome != OutcomeRefused || p.Code != 422 {
		return
	}
	x.refused++
	if x.messages == nil {
		x.messages = map[string]int{}
	}
	if _, ok := x.messages[p.Message]; ok || len(x.messages) < maxRefusalMessages {
		x.messages[p.Message]++
	}
	if !p.At.IsZero() && (x.first.IsZero() || p.At.Before(x.first)) {
		x.first = p.At
	}
}

// plotPoints bounds the results the plot is drawn from: past 2·plotPoints,
// every other one is dropped and from then on only every stride-th result
// is kept, so that the sample stays evenly spread over the run.
const plotPoints = 5000

// plotSample is a sample of a run's results, evenly spread, for plot.html.
type plotSample struct {
	points []plotPoint
	stride int // keep every stride-th result
	seen   int
}

type plotPoint struct {
	op                 string
	failed             bool
	code               uint16
	scheduled, sent    time.Time
	corrected, latency time.Duration
}

func (s *plotSample) add(r *Result) {
	if s.stride == 0 {
		s.stride = 1
	}
	s.seen++
	if (s.seen-1)%s.stride != 0 {
		return
	}
	s.points = append(s.points, plotPoint{op: r.Op, failed: r.Error != "" || r.Code == 0, code: r.Code,
		scheduled: r.Scheduled, sent: r.Timestamp, corrected: r.Corrected(), latency: r.Latency})
	if len(s.points) >= 2*plotPoints {
		kept := s.points[:0]
		for i := 0; i < len(s.points); i += 2 {
			kept = append(kept, s.points[i])
		}
		clear(s.points[len(kept):])
		s.points = kept
		s.stride *= 2
	}
}

// tallyOf counts the results and ledger of an outcome that kept them in
// memory (or reads them from its files).
func tallyOf(o *Outcome) (*Tally, error) {
	merged := len(o.Meta.Merged) > 1
	start := o.Meta.Began
	t := newTally(start, o.Generator.Duration, merged)
	first := true
	err := o.EachResult(func(r *Result) error {
		if first && start.IsZero() {
			// An outcome built without a start: the charts begin at its
			// first result.
			t.timeline.start = r.Scheduled
		}
		first = false
		t.add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.close()
	err = o.EachPayment(func(p *Payment) error { t.addPayment(p); return nil })
	return t, err
}
