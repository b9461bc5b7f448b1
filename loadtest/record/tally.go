package record

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

	Ops       map[string]*opTally
	Corrected histogram // from the scheduled send
	Raw       histogram // from the actual send
	Vegeta    *vegeta.Metrics

	Violations int
	ByRule     map[string]int

	Errors   errorTally
	Refusals RefusalTally
	Timeline *Timeline
	Shards   map[int]*shardTally
	merged   bool // results of several shards: count each shard apart
	Plot     PlotSample
}

type opTally struct {
	OpStats
	Corrected histogram
}

// shardTally is what the page shows of each shard of a merged run.
type shardTally struct {
	Requests    int
	First, Last time.Time
	Corrected   histogram
}

// maxRules bounds the distinct contract rules counted one by one; the rest
// are counted under otherRules.
const (
	maxRules   = 200
	otherRules = "(other rules, past the first 200)"
)

// NewTally returns an empty tally whose charts start at start and suit a
// run of about span; merged counts each shard apart.
func NewTally(start time.Time, span time.Duration, merged bool) *Tally {
	return &Tally{Ops: map[string]*opTally{}, ByRule: map[string]int{}, Vegeta: &vegeta.Metrics{},
		Timeline: newTimeline(start, span), Shards: map[int]*shardTally{}, merged: merged}
}

// Totals sums the per-operation counts: what the whole run was answered.
func (t *Tally) Totals() OpStats {
	var sum OpStats
	for _, op := range t.Ops {
		sum.Expected += op.Expected
		sum.Allowed += op.Allowed
		sum.ServerErrors += op.ServerErrors
		sum.Uncertain += op.Uncertain
		sum.NotDelivered += op.NotDelivered
		sum.Throttled += op.Throttled
	}
	return sum
}

// add counts result r.
func (t *Tally) add(r *Result) {
	t.requests++
	vr := r.Result
	vr.Headers, vr.Body = nil, nil
	t.Vegeta.Add(&vr)
	corrected := r.Corrected()
	t.Corrected.add(corrected)
	t.Raw.add(r.Latency)
	op := t.Ops[r.Op]
	if op == nil {
		op = &opTally{}
		t.Ops[r.Op] = op
	}
	op.Requests++
	op.Corrected.add(corrected)
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
	if r.Throttled {
		op.Throttled++
	}
	if r.Violation != "" {
		op.Violations++
		t.Violations++
		rule := r.Violation
		if _, ok := t.ByRule[rule]; !ok && len(t.ByRule) >= maxRules {
			rule = otherRules
		}
		t.ByRule[rule]++
	}
	t.Errors.add(r)
	t.Timeline.add(r, t.merged)
	if t.merged {
		s := t.Shards[r.Shard]
		if s == nil {
			s = &shardTally{First: r.Timestamp, Last: r.Timestamp}
			t.Shards[r.Shard] = s
		}
		s.Requests++
		if r.Timestamp.Before(s.First) {
			s.First = r.Timestamp
		}
		if r.Timestamp.After(s.Last) {
			s.Last = r.Timestamp
		}
		s.Corrected.add(corrected)
	}
	t.Plot.Add(r)
}

// Requests is the number of results counted.
func (t *Tally) Requests() int { return t.requests }

// Close ends the counting: vegeta's metrics are computed.
func (t *Tally) Close() { t.Vegeta.Close() }

// addPayment counts ledger entry p (the refusals of empty wallets).
func (t *Tally) addPayment(p *Payment) { t.Refusals.add(p) }

// RefusalTally counts the balance and coin payments refused with 422, for
// exhaustion: what it needs of the ledger.
type RefusalTally struct {
	Answered, Refused int
	First             time.Time
	Messages          map[string]int // bounded: past maxRefusalMessages, new ones are not counted
}

const maxRefusalMessages = 100

func (x *RefusalTally) add(p *Payment) {
	if p.Kind == KindGateway || p.Outcome == OutcomeUncertain || p.Outcome == OutcomeNotDelivered || p.Outcome == OutcomeThrottled {
		return
	}
	x.Answered++
	if p.Outcome != OutcomeRefused || p.Code != 422 {
		return
	}
	x.Refused++
	if x.Messages == nil {
		x.Messages = map[string]int{}
	}
	if _, ok := x.Messages[p.Message]; ok || len(x.Messages) < maxRefusalMessages {
		x.Messages[p.Message]++
	}
	if !p.At.IsZero() && (x.First.IsZero() || p.At.Before(x.First)) {
		x.First = p.At
	}
}

// plotPoints bounds the results the plot is drawn from: past 2·plotPoints,
// every other one is dropped and from then on only every stride-th result
// is kept, so that the sample stays evenly spread over the run.
const plotPoints = 5000

// PlotSample is a sample of a run's results, evenly spread, for plot.html.
type PlotSample struct {
	Points []PlotPoint
	stride int // keep every stride-th result
	seen   int
}

type PlotPoint struct {
	op                 string
	Failed             bool
	Code               uint16
	Scheduled, Sent    time.Time
	Corrected, Latency time.Duration
}

func (s *PlotSample) Add(r *Result) {
	if s.stride == 0 {
		s.stride = 1
	}
	s.seen++
	if (s.seen-1)%s.stride != 0 {
		return
	}
	s.Points = append(s.Points, PlotPoint{op: r.Op, Failed: r.Error != "" || r.Code == 0, Code: r.Code,
		Scheduled: r.Scheduled, Sent: r.Timestamp, Corrected: r.Corrected(), Latency: r.Latency})
	if len(s.Points) >= 2*plotPoints {
		kept := s.Points[:0]
		for i := 0; i < len(s.Points); i += 2 {
			kept = append(kept, s.Points[i])
		}
		clear(s.Points[len(kept):])
		s.Points = kept
		s.stride *= 2
	}
}

// tallyOf counts the results and ledger of run from its files.
func tallyOf(run *Run) (*Tally, error) {
	t := NewTally(run.Meta.Began, run.Generator.Duration, len(run.Meta.Merged) > 1)
	if err := run.EachResult(func(r *Result) error { t.add(r); return nil }); err != nil {
		return nil, err
	}
	t.Close()
	err := run.EachPayment(func(p *Payment) error { t.addPayment(p); return nil })
	return t, err
}

// OpStats summarises the requests of one operation (counts of requests):
// a row of the report.
type OpStats struct {
	Requests     int `json:"requests"`
	Expected     int `json:"expected"`
	Allowed      int `json:"allowed"`
	ServerErrors int `json:"server_errors"`
	Violations   int `json:"contract_violations"`
	Uncertain    int `json:"uncertain"`
	NotDelivered int `json:"not_delivered"`
	// Throttled counts the throttled answers (429, or 503 with
	// Retry-After): allowed, never server errors.
	Throttled int       `json:"throttled"`
	Corrected Latencies `json:"latency_corrected"`
}
