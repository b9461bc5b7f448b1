package record

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Tally is the one count of a run's results and ledger, kept in memory
// while they stream to results.bin and ledger.jsonl: per operation, the
// counts and an HDR pair of latencies (corrected and raw); the generator's
// lateness, every send's; the contract rules broken, the error set, the
// refusals of empty wallets and the charts' time buckets; per shard, when
// merging. Its size does not grow with the number of requests (the
// distinct operations, status codes, contract rules and shards are few),
// so a run can last hours. The progress line, the reports and the merge
// read it.
type Tally struct {
	Ops map[string]*OpTally

	// Late counts the sends more than lateAfter after their scheduled time;
	// lateness is every send's lateness.
	Late      int
	lateAfter time.Duration
	lateness  *hdrhistogram.Histogram

	Violations int
	ByRule     map[string]int

	Errors   errorTally
	Refusals RefusalTally
	// Overlap is the most requests in flight at once where the rules need
	// overlap: each account's debits, each id a wave reuses.
	Overlap  OverlapTally
	Timeline *Timeline
	Shards   map[int]*ShardTally // a merge's shards; nil for one run
}

// OpTally is the count of one operation's results: a row of the report,
// and its latencies from the scheduled send (corrected) and from the
// actual send (raw).
type OpTally struct {
	OpStats
	corrected, raw *hdrhistogram.Histogram
}

// ShardTally is what the page shows of each shard of a merged run.
type ShardTally struct {
	Requests    int
	First, Last time.Time
	corrected   *hdrhistogram.Histogram
}

// maxRules bounds the distinct contract rules counted one by one; the rest
// are counted under otherRules.
const (
	maxRules   = 200
	otherRules = "(other rules, past the first 200)"
)

// The latency histograms: HDR histograms of hdrDigits significant digits
// in nanoseconds, from 1 ns to a day (about 300 KiB each, whatever the
// number of requests), which merge across shards without loss.
const (
	hdrDigits  = 3
	hdrHighest = int64(24 * time.Hour)
)

// PercentileMethod says how every latency figure of the reports is
// computed.
const PercentileMethod = "nearest rank over an HDR histogram of 3 significant digits (hdrhistogram-go): each figure within 0.1% of the exact value; counts exact"

// NewTally returns an empty tally whose charts start at start and suit a
// run of about span, counting as late a send more than lateAfter late;
// merged counts each shard apart.
func NewTally(start time.Time, span, lateAfter time.Duration, merged bool) *Tally {
	t := &Tally{Ops: map[string]*OpTally{}, ByRule: map[string]int{}, lateAfter: lateAfter,
		lateness: newHistogram(hdrDigits), Timeline: newTimeline(start, span)}
	if merged {
		t.Shards = map[int]*ShardTally{}
	}
	return t
}

func newHistogram(digits int) *hdrhistogram.Histogram { return hdrhistogram.New(1, hdrHighest, digits) }

// record adds d to h; a value out of range (negative, or above a day) is
// recorded at the bound.
func record(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(min(max(int64(d), 1), hdrHighest))
}

// add counts result r, and reports whether it is the first of its
// distinct unexpected answer (the error set's).
func (t *Tally) add(r *Result) (first bool) {
	corrected := r.Corrected()
	late := r.Timestamp.Sub(r.Scheduled)
	record(t.lateness, late)
	if late > t.lateAfter {
		t.Late++
	}
	op := t.Ops[r.Op]
	if op == nil {
		op = &OpTally{corrected: newHistogram(hdrDigits), raw: newHistogram(hdrDigits)}
		t.Ops[r.Op] = op
	}
	record(op.corrected, corrected)
	record(op.raw, r.Latency)
	op.count(r)
	if r.Violation != "" {
		t.Violations++
		rule := r.Violation
		if _, ok := t.ByRule[rule]; !ok && len(t.ByRule) >= maxRules {
			rule = otherRules
		}
		t.ByRule[rule]++
	}
	first = t.Errors.add(r)
	t.Timeline.add(r, t.Shards != nil)
	if t.Shards != nil {
		s := t.Shards[r.Shard]
		if s == nil {
			s = &ShardTally{First: r.Timestamp, Last: r.Timestamp, corrected: newHistogram(hdrDigits)}
			t.Shards[r.Shard] = s
		}
		s.Requests++
		if r.Timestamp.Before(s.First) {
			s.First = r.Timestamp
		}
		if r.Timestamp.After(s.Last) {
			s.Last = r.Timestamp
		}
		record(s.corrected, corrected)
	}
	return first
}

// count counts r in the operation's row.
func (op *OpStats) count(r *Result) {
	op.Requests++
	op.Expected += btoi(r.Expected)
	op.Allowed += btoi(r.Allowed)
	op.ServerErrors += btoi(r.serverError())
	op.Violations += btoi(r.Violation != "")
	op.Uncertain += btoi(r.Uncertain)
	op.NotDelivered += btoi(r.NotDelivered)
	op.Throttled += btoi(r.Throttled)
	op.Gateway += btoi(r.Gateway)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Requests is the number of results counted.
func (t *Tally) Requests() int { return t.Totals().Requests }

// Totals sums the per-operation counts: what the whole run was answered.
func (t *Tally) Totals() OpStats {
	var sum OpStats
	for _, op := range t.Ops {
		sum.Requests += op.Requests
		sum.Expected += op.Expected
		sum.Allowed += op.Allowed
		sum.ServerErrors += op.ServerErrors
		sum.Violations += op.Violations
		sum.Uncertain += op.Uncertain
		sum.NotDelivered += op.NotDelivered
		sum.Throttled += op.Throttled
		sum.Gateway += op.Gateway
	}
	return sum
}

// Corrected and Raw are the latencies of every operation together, from
// the scheduled and from the actual send.
func (t *Tally) Corrected() Latencies {
	return t.merged(func(op *OpTally) *hdrhistogram.Histogram { return op.corrected })
}
func (t *Tally) Raw() Latencies {
	return t.merged(func(op *OpTally) *hdrhistogram.Histogram { return op.raw })
}

func (t *Tally) merged(of func(*OpTally) *hdrhistogram.Histogram) Latencies {
	all := newHistogram(hdrDigits)
	for _, op := range t.Ops {
		all.Merge(of(op))
	}
	return summarize(all)
}

// Lateness is how late the generator sent each request after its
// scheduled time.
func (t *Tally) Lateness() Latencies { return summarize(t.lateness) }

// StatusCodes counts the answers by status code ("0": none).
func (t *Tally) StatusCodes() map[string]int {
	codes := map[string]int{}
	for i := range t.Timeline.Buckets {
		for code, n := range t.Timeline.Buckets[i].Codes {
			if code == noAnswer {
				code = "0"
			}
			codes[code] += n
		}
	}
	return codes
}

// Stats is the operation's row of the report, with its corrected
// latencies.
func (op *OpTally) Stats() OpStats {
	s := op.OpStats
	s.Corrected = summarize(op.corrected)
	return s
}

// Corrected is the shard's corrected latencies.
func (s *ShardTally) Corrected() Latencies { return summarize(s.corrected) }

// addPayment counts ledger entry p: the refusals of empty wallets,
// and the overlap of its requests.
func (t *Tally) addPayment(p *Payment) {
	t.Refusals.add(p)
	t.Overlap.add(p)
}

// RefusalTally counts the balance and coin payments refused with 422, for
// exhaustion: what it needs of the ledger.
type RefusalTally struct {
	Answered, Refused int
	First             time.Time
	Messages          map[string]int // bounded: past maxRefusalMessages, new ones are not counted
}

const maxRefusalMessages = 100

func (x *RefusalTally) add(p *Payment) {
	if p.Kind == KindGateway || p.Outcome == OutcomeUncertain || p.Outcome == OutcomeNotDelivered || p.Outcome == OutcomeThrottled || p.Outcome == OutcomeGateway {
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

// tallyOf counts the results and ledger of run from its files.
func tallyOf(run *Run) (*Tally, error) {
	t := NewTally(run.Meta.Began, run.Meta.Load.Duration, run.Meta.LateAfter, len(run.Meta.Merged) > 1)
	if err := run.EachResult(func(r *Result) error { t.add(r); return nil }); err != nil {
		return nil, err
	}
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
	Throttled int `json:"throttled"`
	// Gateway counts the answers a gateway gave instead of the API
	// (Result.Gateway): neither allowed nor server errors of the API.
	Gateway   int       `json:"gateway,omitempty"`
	Corrected Latencies `json:"latency_corrected"`
}

// Latencies summarises a set of latencies (see PercentileMethod).
type Latencies struct {
	Count int           `json:"count"`
	Min   time.Duration `json:"min"`
	Mean  time.Duration `json:"mean"`
	P50   time.Duration `json:"p50"`
	P90   time.Duration `json:"p90"`
	P95   time.Duration `json:"p95"`
	P99   time.Duration `json:"p99"`
	P999  time.Duration `json:"p999"`
	Max   time.Duration `json:"max"`
}

// summarize is the Latencies of h.
func summarize(h *hdrhistogram.Histogram) Latencies {
	if h == nil || h.TotalCount() == 0 {
		return Latencies{}
	}
	q := func(q float64) time.Duration { return quantile(h, q) }
	return Latencies{Count: int(h.TotalCount()), Min: time.Duration(h.Min()), Mean: time.Duration(math.Round(h.Mean())),
		P50: q(0.50), P90: q(0.90), P95: q(0.95), P99: q(0.99), P999: q(0.999), Max: time.Duration(h.Max())}
}

// quantile is the nearest-rank q-quantile of h: the highest value
// equivalent to the one of rank ⌈q·n⌉. (The library's ValueAtPercentile
// rounds the rank to the nearest: asked for the rank less a quarter, it
// lands on it.)
func quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	n := float64(h.TotalCount())
	rank := max(1, min(n, math.Ceil(q*n-1e-9)))
	return time.Duration(h.ValueAtPercentile(100 * (rank - 0.25) / n))
}
