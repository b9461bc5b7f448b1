package verdict

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/anishathalye/porcupine"
)

// FileHistoryHTML is porcupine's visualisation of the part of a history
// that no serial order explains; written only when the check fails.
const FileHistoryHTML = "history.html"

// DefaultHistoryTimeout bounds the history check.
const DefaultHistoryTimeout = 2 * time.Minute

// visualizeTimeout bounds porcupine's search for the partial
// linearizations it draws; the drawing shows what it found by then.
const visualizeTimeout = 10 * time.Second

// The verdicts of a history check.
const (
	HistoryOK        = "ok"        // every account's history is linearizable
	HistoryIllegal   = "illegal"   // some account's history is not
	HistoryUndecided = "undecided" // the check ran out of time before deciding
)

// HistoryCheck is the verdict of the history (linearizability) check of a
// run: per account, the debits of the successful payments and the profile
// reads must be explainable by some serial order of those operations, each
// taking effect at one instant between its invocation and its answer.
type HistoryCheck struct {
	Verdict string `json:"verdict"`
	// Operations counts the operations checked: debits and profile reads.
	Operations int `json:"operations"`
	Debits     int `json:"debits"`
	Reads      int `json:"reads"`
	Accounts   int `json:"accounts"`
	// Segments counts the independent pieces the accounts' histories were
	// cut into: an account's history is cut wherever no operation is in
	// flight.
	Segments int `json:"segments"`
	// Undecided counts the segments of the checks that ran out of time.
	Undecided int `json:"undecided,omitempty"`
	// BoundsOnly counts the profile reads concurrent with more than
	// maxReadOverlap debits of their account, which porcupine accepts
	// whatever they show and only the bounds check (start minus the debits
	// that surely preceded them, at least; minus every debit that may have,
	// at most) checks.
	BoundsOnly int `json:"bounds_only_reads,omitempty"`
	// Account and FirstUnexplained name the account of the first failing
	// segment and the first of its operations that no serial order
	// explains.
	Account          string        `json:"account,omitempty"`
	FirstUnexplained string        `json:"first_unexplained,omitempty"`
	Elapsed          time.Duration `json:"elapsed"`
	// Warning is the departure from the reading the check rests on
	// (history-linearizable) of an illegal history: a warning, a failure
	// only in a strict run.
	Warning *contract.Warning `json:"warning,omitempty"`

	failing *historySegment // the first illegal segment, for the visualisation
}

// readingHistory is the reading the history check rests on.
var readingHistory = contract.MustReading("history-linearizable")

// Passed reports whether the history was found linearizable.
func (h *HistoryCheck) Passed() bool { return h.Verdict == HistoryOK }

// String is the one-line summary of the check.
func (h *HistoryCheck) String() string {
	switch h.Verdict {
	case HistoryOK:
		return fmt.Sprintf("history: linearizable (%d operations: %d debits, %d profile reads of which %d concurrent with over %d debits checked by bounds only; %d accounts, %d segments; checked in %s)",
			h.Operations, h.Debits, h.Reads, h.BoundsOnly, maxReadOverlap, h.Accounts, h.Segments, h.Elapsed.Round(time.Millisecond))
	case HistoryIllegal:
		return fmt.Sprintf("history: NOT linearizable: account %s: no serial order of its payments explains %s", h.Account, h.FirstUnexplained)
	default:
		return fmt.Sprintf("history: undecided: %d of %d segments not decided in %s", h.Undecided, h.Segments, h.Elapsed.Round(time.Millisecond))
	}
}

// The kinds of operation of the wallet model.
const (
	stepStart = iota // the state the segment starts from (synthetic)
	stepDebit        // a successful payment: balance and coins fall
	stepRead         // a profile read: balance and coins as answered
)

// walletState is the model's state and the answer of a read or the amounts
// of a debit. known is false when the value cannot be known (before the
// first read; after a payment whose amounts could not be learned).
type walletState struct {
	known          bool
	balance, coins int64
}

// stepInput is an operation of the model; what it describes is in
// operations[index] of its segment, the segment-th of its part of the
// history (the partition porcupine checks it in).
type stepInput struct {
	kind    int
	index   int
	segment int
	// boundsOnly marks a read concurrent with more than maxReadOverlap
	// debits of its account: porcupine accepts it whatever it shows (the
	// search for the subset of debits it saw grows as 2^overlap), and only
	// outOfBounds checks it.
	boundsOnly bool
}

// maxReadOverlap is how many debits a read may be concurrent with and
// still be checked by porcupine's search.
const maxReadOverlap = 10

// historySegment is a piece of one account's history that can be checked
// on its own: no operation of the account is in flight at its borders.
type historySegment struct {
	account string
	ops     []porcupine.Operation
	desc    []string // desc[i] describes ops[i]
	culprit int      // a read outOfBounds found; -1 when none
	// explained are the operations of porcupine's longest partial
	// linearization of an illegal segment.
	explained []int
}

// outOfBounds is a quick test that spares porcupine's search where it is
// slowest, refuting a history: a read must show the start minus at least
// the debits that returned before it was invoked, and at most those
// invoked before it returned. It returns the index of the read out of
// these bounds that returned first, or -1 (the segment may still be
// illegal; porcupine decides). It knows nothing when the start or a
// debit is unknown.
func (s *historySegment) outOfBounds() int {
	start := s.ops[0].Output.(walletState)
	if !start.known {
		return -1
	}
	type edge struct {
		at             int64
		balance, coins int64
	}
	var returns, calls []edge
	for _, op := range s.ops[1:] {
		if op.Input.(stepInput).kind != stepDebit {
			continue
		}
		a := op.Output.(walletState)
		if !a.known || a.balance < 0 || a.coins < 0 {
			return -1 // the bounds hold only for debits that take, never give
		}
		returns = append(returns, edge{op.Return, a.balance, a.coins})
		calls = append(calls, edge{op.Call, a.balance, a.coins})
	}
	prefix := func(es []edge) []edge { // es sorted by at; es[i] becomes the sum of es[0..i]
		sort.Slice(es, func(i, j int) bool { return es[i].at < es[j].at })
		for i := 1; i < len(es); i++ {
			es[i].balance += es[i-1].balance
			es[i].coins += es[i-1].coins
		}
		return es
	}
	returns, calls = prefix(returns), prefix(calls)
	// sum is the total of the debits of es at or before t (strictly before
	// when strict).
	sum := func(es []edge, t int64, strict bool) (int64, int64) {
		n := sort.Search(len(es), func(i int) bool {
			if strict {
				return es[i].at >= t
			}
			return es[i].at > t
		})
		if n == 0 {
			return 0, 0
		}
		return es[n-1].balance, es[n-1].coins
	}
	culprit := -1
	for i, op := range s.ops[1:] {
		if op.Input.(stepInput).kind != stepRead {
			continue
		}
		w := op.Output.(walletState)
		mustB, mustC := sum(returns, op.Call, true) // returned before the read was invoked
		mayB, mayC := sum(calls, op.Return, false)  // invoked before the read returned
		ok := w.balance <= start.balance-mustB && w.balance >= start.balance-mayB &&
			w.coins <= start.coins-mustC && w.coins >= start.coins-mayC
		if !ok && (culprit < 0 || op.Return < s.ops[culprit].Return) {
			culprit = i + 1
		}
	}
	return culprit
}

// walletModel is the sequential specification: a wallet that payments
// debit and profile reads observe.
var walletModel = porcupine.Model{
	// Each segment is checked on its own, from the state it starts from:
	// porcupine checks the partitions in parallel.
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		var parts [][]porcupine.Operation
		at := map[int]int{} // a segment's partition
		for _, op := range history {
			seg := op.Input.(stepInput).segment
			i, ok := at[seg]
			if !ok {
				i = len(parts)
				at[seg] = i
				parts = append(parts, nil)
			}
			parts[i] = append(parts[i], op)
		}
		return parts
	},
	Init: func() interface{} { return walletState{} },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, in, out := state.(walletState), input.(stepInput), output.(walletState)
		switch in.kind {
		case stepStart:
			return true, out
		case stepDebit:
			if !s.known || !out.known {
				return true, walletState{}
			}
			return true, walletState{known: true, balance: s.balance - out.balance, coins: s.coins - out.coins}
		default:
			if in.boundsOnly {
				return true, s
			}
			if !s.known {
				return true, out
			}
			return s == out, s
		}
	},
	Hash: func(state interface{}) uint64 {
		s := state.(walletState)
		return uint64(s.balance)*1_000_003 ^ uint64(s.coins)
	},
	DescribeOperation: func(input, output interface{}) string {
		in, out := input.(stepInput), output.(walletState)
		switch in.kind {
		case stepStart:
			return "start " + describeWallet(out)
		case stepDebit:
			if !out.known {
				return "debit ?"
			}
			return fmt.Sprintf("debit %d rupiah, %d coins", out.balance, out.coins)
		default:
			return "read " + describeWallet(out)
		}
	},
	DescribeState: func(state interface{}) string { return describeWallet(state.(walletState)) },
}

func describeWallet(w walletState) string {
	if !w.known {
		return "unknown"
	}
	return fmt.Sprintf("balance %d, coins %d", w.balance, w.coins)
}

// history is a history read one operation at a time (a record.Run, from
// its files).
type history interface {
	EachHistoryOp(fn func(*record.HistoryOp) error) error
}

// checkHistory checks the history of src for linearizability, per
// account, with porcupine, within timeout. It reads src twice: once for
// the span of the history, then grouped by partition (an account and its
// payments) with at most most operations in memory (a longer history is
// spilled to bucket files, as a ledger is), checking one group at a time.
func checkHistory(src history, timeout time.Duration, most int) (*HistoryCheck, error) {
	began := time.Now()
	hc := &HistoryCheck{}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var sp historySpan
	if err := src.EachHistoryOp(func(op *record.HistoryOp) error { sp.add(op); return nil }); err != nil {
		return nil, err
	}
	_, err := spillEach(src.EachHistoryOp, historySpill, most, func(ops []record.HistoryOp) { hc.checkPart(ctx, ops, sp) }, 0)
	if err != nil {
		return nil, fmt.Errorf("history check: %w", err)
	}
	hc.finish(began)
	return hc, nil
}

// historySpill spills a history by partition: the account of an
// operation, which the load tester records on every operation of a
// payment, so that an account's reads and every request and look-up of
// its payments land in one bucket (an operation without an account, by
// its partner_trx_id).
var historySpill = &spillKind[record.HistoryOp]{
	key: func(op *record.HistoryOp) string {
		if op.Account != "" {
			return op.Account
		}
		return op.ID
	},
	each: record.EachHistoryOp,
}

// historySpan is the first invocation of a history and its end, from which
// the descriptions count time and until which an effect no answer bounds
// may happen.
type historySpan struct {
	origin, end int64
	seen        bool
}

func (sp *historySpan) add(op *record.HistoryOp) {
	if !sp.seen {
		sp.origin, sp.seen = op.Invoke, true
	}
	sp.origin = min(sp.origin, op.Invoke)
	sp.end = max(sp.end, op.Invoke, op.Return)
}

// checkPart checks ops, a part of a history that holds every operation of
// its accounts and their payments, within ctx, and adds what it found to
// hc: counts, and the failing segment that began first. A segment the
// bounds refute is illegal; the others go to porcupine together, each its
// own partition (walletModel.Partition).
func (hc *HistoryCheck) checkPart(ctx context.Context, ops []record.HistoryOp, sp historySpan) {
	segs := buildSegments(ops, sp, hc)
	hc.Segments += len(segs)
	var history []porcupine.Operation
	var checked []*historySegment // in the order of porcupine's partitions
	for _, s := range segs {
		if s.culprit = s.outOfBounds(); s.culprit >= 0 {
			hc.fail(s)
			continue
		}
		history = append(history, s.ops...)
		checked = append(checked, s)
	}
	left := time.Until(deadlineOf(ctx))
	switch {
	case len(checked) == 0:
	case left <= 0:
		hc.Undecided += len(checked)
	default:
		switch porcupine.CheckOperationsTimeout(walletModel, history, left) {
		case porcupine.Unknown:
			hc.Undecided += len(checked)
		case porcupine.Illegal:
			// Which segments: those no partial linearization covers whole.
			_, info := porcupine.CheckOperationsVerbose(walletModel, history, visualizeTimeout)
			for i, lins := range info.PartialLinearizations() {
				longest := slices.MaxFunc(append(lins, nil), func(a, b []int) int { return len(a) - len(b) })
				if s := checked[i]; len(longest) < len(s.ops) {
					s.explained = longest
					hc.fail(s)
				}
			}
		}
	}
}

// fail notes that segment s is illegal: the one that began first (then the
// first account's) names the verdict.
func (hc *HistoryCheck) fail(s *historySegment) {
	if f := hc.failing; f == nil || s.ops[0].Call < f.ops[0].Call || s.ops[0].Call == f.ops[0].Call && s.account < f.account {
		hc.failing = s
	}
}

// finish sets the verdict of the parts checked, and the time taken since
// began.
func (hc *HistoryCheck) finish(began time.Time) {
	hc.Operations = hc.Debits + hc.Reads
	hc.Verdict = HistoryOK
	switch {
	case hc.failing != nil:
		hc.Verdict = HistoryIllegal
		hc.Account = hc.failing.account
		hc.FirstUnexplained = hc.failing.firstUnexplained()
		w := readingHistory.Warn(fmt.Sprintf("account %s: no serial order of its payments explains %s", hc.Account, hc.FirstUnexplained))
		hc.Warning = &w
	case hc.Undecided > 0:
		hc.Verdict = HistoryUndecided
	}
	hc.Elapsed = time.Since(began)
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// firstUnexplained describes the operation of an illegal segment that no
// serial order reaches: the read the bounds refuted or, of the operations
// outside porcupine's longest partial linearization, the one that
// returned first.
func (s *historySegment) firstUnexplained() string {
	if s.culprit >= 0 {
		return s.desc[s.culprit]
	}
	explained := map[int]bool{}
	for _, i := range s.explained {
		explained[i] = true
	}
	first := -1
	for i, op := range s.ops {
		if explained[i] || op.Input.(stepInput).kind == stepStart {
			continue
		}
		if first < 0 || op.Return < s.ops[first].Return {
			first = i
		}
	}
	if first < 0 {
		return "(porcupine named no operation)"
	}
	return s.desc[first]
}

// Visualized reports whether WriteVisualization has a failing part of the
// history to show.
func (h *HistoryCheck) Visualized() bool { return h.failing != nil }

// WriteVisualization writes porcupine's HTML visualisation of the first
// failing segment; nothing when the check passed.
func (h *HistoryCheck) WriteVisualization(w io.Writer) error {
	if h.failing == nil {
		return nil
	}
	_, info := porcupine.CheckOperationsVerbose(walletModel, h.failing.ops, visualizeTimeout)
	return porcupine.Visualize(walletModel, info, w)
}

// item is an operation of the model and its description.
type item struct {
	op   porcupine.Operation
	desc string
}

// buildSegments turns the operations of a run into the model's operations,
// grouped by account and cut where nothing is in flight.
func buildSegments(ops []record.HistoryOp, sp historySpan, hc *HistoryCheck) []*historySegment {
	if len(ops) == 0 {
		return nil
	}
	b := newSegmentBuilder(sp, hc)
	b.read(ops)
	for _, id := range b.idOrder {
		b.addPayment(id, b.byID[id])
	}
	hc.Accounts += len(b.perAccount)
	return b.segments()
}

// idOps are the payment requests and status answers of one partner_trx_id.
type idOps struct {
	account string
	reqs    []*record.HistoryOp
	found   []*record.HistoryOp // status answers 200 with an amount
	missing bool                // a status look-up after the attack found nothing
}

// segmentBuilder gathers a history's items per account, which it then
// cuts into segments.
type segmentBuilder struct {
	hc          *HistoryCheck
	origin, end int64 // the history's first invocation and its end
	perAccount  map[string][]item
	byID        map[string]*idOps
	idOrder     []string
}

func newSegmentBuilder(sp historySpan, hc *HistoryCheck) *segmentBuilder {
	// An effect not bounded by any answer may happen until the history ends.
	return &segmentBuilder{hc: hc, origin: sp.origin, end: sp.end + 1, perAccount: map[string][]item{}, byID: map[string]*idOps{}}
}

// at is the time ns from the history's start, for the descriptions.
func (b *segmentBuilder) at(ns int64) string { return fmt.Sprintf("+%.3fs", float64(ns-b.origin)/1e9) }

// add adds an operation of account acct to its items.
func (b *segmentBuilder) add(acct string, client int, kind int, call, ret int64, out walletState, desc string) {
	idx := len(b.perAccount[acct])
	b.perAccount[acct] = append(b.perAccount[acct], item{porcupine.Operation{
		ClientId: client, Input: stepInput{kind: kind, index: idx}, Call: call, Output: out, Return: ret,
	}, desc})
}

// group returns the operations of op's partner_trx_id.
func (b *segmentBuilder) group(op *record.HistoryOp) *idOps {
	g := b.byID[op.ID]
	if g == nil {
		g = &idOps{account: op.Account}
		b.byID[op.ID] = g
		b.idOrder = append(b.idOrder, op.ID)
	}
	if g.account == "" {
		g.account = op.Account
	}
	return g
}

// read adds the answered profile reads and groups the payment requests
// and status answers by partner_trx_id.
func (b *segmentBuilder) read(ops []record.HistoryOp) {
	for i := range ops {
		op := &ops[i]
		switch op.Op {
		case record.OpProfile:
			if !op.Answered() || op.Code != http.StatusOK || op.Balance == nil || op.Coins == nil {
				continue
			}
			w := walletState{known: true, balance: *op.Balance, coins: *op.Coins}
			b.add(op.Account, op.Client, stepRead, op.Invoke, op.Return, w,
				fmt.Sprintf("the profile read by client %d invoked at %s, answered at %s: %s (%s)",
					op.Client, b.at(op.Invoke), b.at(op.Return), describeWallet(w), op.Phase))
			b.hc.Reads++
		case record.OpCreate:
			if op.ID != "" {
				g := b.group(op)
				g.reqs = append(g.reqs, op)
			}
		case record.OpStatus:
			if op.ID == "" || !op.Answered() {
				continue
			}
			g := b.group(op)
			switch {
			case op.Code == http.StatusOK && op.Amount != nil:
				g.found = append(g.found, op)
			case op.Code == http.StatusNotFound && op.Phase == record.PhaseResolve:
				g.missing = true
			}
		}
	}
}

// addPayment adds the debits of payment id: one per answer that said
// created, or one whose effect lies between its first send and the answer
// that showed it made.
func (b *segmentBuilder) addPayment(id string, g *idOps) {
	if len(g.reqs) == 0 || g.account == "" {
		return // a status read of an id this history did not create
	}
	call := g.reqs[0].Invoke
	for _, r := range g.reqs {
		call = min(call, r.Invoke)
	}
	if b.addCreated(id, g, call) == 0 {
		b.addUnanswered(id, g, call)
	}
}

// addCreated adds a debit for each answer that said created (the first
// from the id's first send, a second creation of the id its own debit)
// and returns how many.
func (b *segmentBuilder) addCreated(id string, g *idOps, call int64) int {
	made := 0
	for _, r := range g.reqs {
		if r.Outcome != record.OutcomeCreated || r.Amount == nil || !r.Answered() {
			continue
		}
		c := call
		if made > 0 {
			c = r.Invoke
		}
		a := walletState{known: true, balance: r.Amount.BalanceUsed, coins: r.Amount.CoinUsed}
		b.add(g.account, r.Client, stepDebit, c, r.Return, a,
			fmt.Sprintf("payment %s (client %d, invoked at %s, created at %s): debit %d rupiah, %d coins",
				id, r.Client, b.at(c), b.at(r.Return), a.balance, a.coins))
		b.hc.Debits++
		made++
	}
	return made
}

// addUnanswered adds the debit of a payment no answer said created: it
// took effect if a later answer says the id is used (409) or payment
// status finds it; its effect then lies between the first send and that
// answer. A payment never resolved may have taken effect, for an unknown
// amount; a refused one, or one never created, adds nothing.
func (b *segmentBuilder) addUnanswered(id string, g *idOps, call int64) {
	ret, used, uncertain := b.end, false, false
	for _, r := range g.reqs {
		switch {
		case r.Outcome == record.OutcomeDuplicate && r.Answered():
			used = true
			ret = min(ret, r.Return)
		case r.Outcome == record.OutcomeUncertain:
			uncertain = true
		}
	}
	amount := walletState{}
	for _, f := range g.found {
		used = true
		ret = min(ret, f.Return)
		amount = walletState{known: true, balance: f.Amount.BalanceUsed, coins: f.Amount.CoinUsed}
	}
	if !used && (!uncertain || g.missing) {
		return // refused, or never created
	}
	how := "debit unknown"
	if amount.known {
		how = fmt.Sprintf("debit %d rupiah, %d coins", amount.balance, amount.coins)
	}
	first := g.reqs[0]
	b.add(g.account, first.Client, stepDebit, call, ret, amount,
		fmt.Sprintf("payment %s (client %d, invoked at %s, answer lost; known to be made by %s): %s",
			id, first.Client, b.at(call), b.at(ret), how))
	b.hc.Debits++
}

// segments cuts each account's items, in the order of their invocation,
// into segments: runs of operations that overlap in time, checked one at a
// time from the state the segments before them leave.
func (b *segmentBuilder) segments() []*historySegment {
	var segs []*historySegment
	for _, acct := range slices.Sorted(maps.Keys(b.perAccount)) {
		items := b.perAccount[acct]
		sort.SliceStable(items, func(i, j int) bool { return items[i].op.Call < items[j].op.Call })
		b.hc.BoundsOnly += markCrowdedReads(items, func(i int) *porcupine.Operation { return &items[i].op })
		cur := walletState{} // the model's state where the next segment starts
		for i := 0; i < len(items); {
			j, reach := i+1, items[i].op.Return
			for j < len(items) && items[j].op.Call <= reach {
				reach = max(reach, items[j].op.Return)
				j++
			}
			var s *historySegment
			s, cur = newSegment(len(segs), acct, items[i:j], cur)
			segs = append(segs, s)
			i = j
		}
	}
	return segs
}

// newSegment is segment seg, of account acct's overlapping items,
// starting from state cur, and the state after it.
func newSegment(seg int, acct string, items []item, cur walletState) (*historySegment, walletState) {
	s := &historySegment{account: acct, culprit: -1}
	start := items[0].op.Call - 1
	s.ops = append(s.ops, porcupine.Operation{ClientId: 0, Input: stepInput{kind: stepStart, segment: seg}, Call: start, Output: cur, Return: start})
	s.desc = append(s.desc, "start "+describeWallet(cur))
	clients := map[int]int{}
	for k, it := range items {
		in := it.op.Input.(stepInput)
		in.index, in.segment = k+1, seg
		c, ok := clients[it.op.ClientId]
		if !ok {
			c = len(clients)
			clients[it.op.ClientId] = c
		}
		o := it.op
		o.Input, o.ClientId = in, c
		s.ops = append(s.ops, o)
		s.desc = append(s.desc, it.desc)
		cur = advance(cur, in.kind, o.Output.(walletState), len(items) == 1)
	}
	return s, cur
}

// advance is the state after a segment's operation of kind with output
// out, whatever the order within the segment: debits commute, and a read
// fixes the state only when it is alone in its segment.
func advance(cur walletState, kind int, out walletState, alone bool) walletState {
	switch {
	case kind == stepDebit && cur.known && out.known:
		return walletState{known: true, balance: cur.balance - out.balance, coins: cur.coins - out.coins}
	case kind == stepDebit:
		return walletState{}
	case kind == stepRead && !cur.known && alone:
		return out
	default:
		return cur
	}
}

// markCrowdedReads marks the reads among n operations (sorted by call;
// op(i) is the i-th) that are concurrent with more than maxReadOverlap
// debits as bounds-only, and returns how many it marked.
func markCrowdedReads(ops []item, op func(int) *porcupine.Operation) int {
	var calls, returns []int64
	for i := range ops {
		o := op(i)
		if o.Input.(stepInput).kind == stepDebit {
			calls = append(calls, o.Call)
			returns = append(returns, o.Return)
		}
	}
	slices.Sort(calls)
	slices.Sort(returns)
	marked := 0
	for i := range ops {
		o := op(i)
		in := o.Input.(stepInput)
		if in.kind != stepRead {
			continue
		}
		// Concurrent: invoked before the read returned, minus those that
		// returned before it was invoked.
		invoked, _ := slices.BinarySearch(calls, o.Return+1)
		done, _ := slices.BinarySearch(returns, o.Call)
		if invoked-done > maxReadOverlap {
			in.boundsOnly = true
			o.Input = in
			marked++
		}
	}
	return marked
}
