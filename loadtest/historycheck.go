package loadtest

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// FileHistoryHTML is porcupine's visualisation of the part of a history
// that no serial order explains; written only when the check fails.
const FileHistoryHTML = "history.html"

// DefaultHistoryTimeout bounds the history check.
const DefaultHistoryTimeout = 2 * time.Minute

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
	// Undecided counts the segments the checker had no time to decide.
	Undecided int `json:"undecided,omitempty"`
	// Account and FirstUnexplained name the account of the first failing
	// segment and the first of its operations that no serial order
	// explains.
	Account          string        `json:"account,omitempty"`
	FirstUnexplained string        `json:"first_unexplained,omitempty"`
	Elapsed          time.Duration `json:"elapsed"`

	failing *historySegment // the first illegal segment, for the visualisation
}

// Passed reports whether the history was found linearizable.
func (h *HistoryCheck) Passed() bool { return h.Verdict == HistoryOK }

// String is the one-line summary of the check.
func (h *HistoryCheck) String() string {
	switch h.Verdict {
	case HistoryOK:
		return fmt.Sprintf("history: linearizable (%d operations: %d debits, %d profile reads; %d accounts, %d segments; checked in %s)",
			h.Operations, h.Debits, h.Reads, h.Accounts, h.Segments, h.Elapsed.Round(time.Millisecond))
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
// operations[index] of its segment.
type stepInput struct {
	kind  int
	index int
}

// historySegment is a piece of one account's history that can be checked
// on its own: no operation of the account is in flight at its borders.
type historySegment struct {
	account string
	ops     []porcupine.Operation
	desc    []string // desc[i] describes ops[i]
	result  porcupine.CheckResult
}

// walletModel is the sequential specification: a wallet that payments
// debit and profile reads observe.
var walletModel = porcupine.Model{
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

// CheckHistory checks ops (the operations of a run) for linearizability,
// per account, with porcupine, within timeout.
func CheckHistory(ops []Operation, timeout time.Duration) *HistoryCheck {
	began := time.Now()
	hc := &HistoryCheck{}
	segs := buildSegments(ops, hc)
	hc.Segments = len(segs)

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	work := make(chan *historySegment)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(segs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				left := time.Until(deadlineOf(ctx))
				if left <= 0 {
					s.result = porcupine.Unknown
					continue
				}
				s.result = porcupine.CheckOperationsTimeout(walletModel, s.ops, left)
			}
		}()
	}
	for _, s := range segs {
		work <- s
	}
	close(work)
	wg.Wait()

	hc.Verdict = HistoryOK
	for _, s := range segs { // in order of time within each account
		switch s.result {
		case porcupine.Illegal:
			if hc.failing == nil || s.ops[0].Call < hc.failing.ops[0].Call {
				hc.failing = s
			}
		case porcupine.Unknown:
			hc.Undecided++
		}
	}
	switch {
	case hc.failing != nil:
		hc.Verdict = HistoryIllegal
		hc.Account = hc.failing.account
		hc.FirstUnexplained = hc.failing.firstUnexplained()
	case hc.Undecided > 0:
		hc.Verdict = HistoryUndecided
	}
	hc.Elapsed = time.Since(began)
	return hc
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// firstUnexplained describes the operation of an illegal segment that no
// serial order reaches: of the operations outside porcupine's longest
// partial linearization, the one that returned first.
func (s *historySegment) firstUnexplained() string {
	_, info := porcupine.CheckOperationsVerbose(walletModel, s.ops, time.Minute)
	explained := map[int]bool{}
	if parts := info.PartialLinearizations(); len(parts) > 0 {
		var longest []int
		for _, l := range parts[0] {
			if len(l) > len(longest) {
				longest = l
			}
		}
		for _, i := range longest {
			explained[i] = true
		}
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

// WriteVisualization writes porcupine's HTML visualisation of the first
// failing segment; nothing when the check passed.
func (h *HistoryCheck) WriteVisualization(w io.Writer) error {
	if h.failing == nil {
		return nil
	}
	_, info := porcupine.CheckOperationsVerbose(walletModel, h.failing.ops, time.Minute)
	return porcupine.Visualize(walletModel, info, w)
}

// pending is a debit under construction: one partner_trx_id's effect.
type pending struct {
	call, ret int64
	amount    walletState
	client    int
	desc      string
}

// buildSegments turns the operations of a run into the model's operations,
// grouped by account and cut where nothing is in flight.
func buildSegments(ops []Operation, hc *HistoryCheck) []*historySegment {
	if len(ops) == 0 {
		return nil
	}
	origin, end := int64(math.MaxInt64), int64(0)
	for i := range ops {
		origin = min(origin, ops[i].Invoke)
		end = max(end, ops[i].Invoke, ops[i].Return)
	}
	end++ // an effect not bounded by any answer may happen until the history ends
	at := func(ns int64) string { return fmt.Sprintf("+%.3fs", float64(ns-origin)/1e9) }

	type item struct {
		op   porcupine.Operation
		desc string
	}
	perAccount := map[string][]item{}
	add := func(acct string, client int, kind int, call, ret int64, out walletState, desc string) {
		idx := len(perAccount[acct])
		perAccount[acct] = append(perAccount[acct], item{porcupine.Operation{
			ClientId: client, Input: stepInput{kind: kind, index: idx}, Call: call, Output: out, Return: ret,
		}, desc})
	}

	// Group the payment requests and status answers by partner_trx_id.
	type idOps struct {
		account string
		reqs    []*Operation
		found   []*Operation // status answers 200 with an amount
		missing bool         // a status look-up after the attack found nothing
	}
	byID := map[string]*idOps{}
	var idOrder []string
	group := func(op *Operation) *idOps {
		g := byID[op.ID]
		if g == nil {
			g = &idOps{account: op.Account}
			byID[op.ID] = g
			idOrder = append(idOrder, op.ID)
		}
		if g.account == "" {
			g.account = op.Account
		}
		return g
	}
	for i := range ops {
		op := &ops[i]
		switch op.Op {
		case OpProfile:
			if !op.answered() || op.Code != http.StatusOK || op.Balance == nil || op.Coins == nil {
				continue
			}
			w := walletState{known: true, balance: *op.Balance, coins: *op.Coins}
			add(op.Account, op.Client, stepRead, op.Invoke, op.Return, w,
				fmt.Sprintf("the profile read by client %d invoked at %s, answered at %s: %s (%s)",
					op.Client, at(op.Invoke), at(op.Return), describeWallet(w), op.Phase))
			hc.Reads++
		case OpCreate:
			if op.ID != "" {
				g := group(op)
				g.reqs = append(g.reqs, op)
			}
		case OpStatus:
			if op.ID == "" || !op.answered() {
				continue
			}
			g := group(op)
			switch {
			case op.Code == http.StatusOK && op.Amount != nil:
				g.found = append(g.found, op)
			case op.Code == http.StatusNotFound && op.Phase == PhaseResolve:
				g.missing = true
			}
		}
	}

	for _, id := range idOrder {
		g := byID[id]
		if len(g.reqs) == 0 || g.account == "" {
			continue // a status read of an id this history did not create
		}
		first := g.reqs[0]
		call := first.Invoke
		for _, r := range g.reqs {
			call = min(call, r.Invoke)
		}
		made := 0
		for _, r := range g.reqs {
			if r.Outcome != OutcomeCreated || r.Amount == nil || !r.answered() {
				continue
			}
			c := call
			if made > 0 {
				c = r.Invoke // a second creation of the id is its own debit
			}
			a := walletState{known: true, balance: r.Amount.BalanceUsed, coins: r.Amount.CoinUsed}
			add(g.account, r.Client, stepDebit, c, r.Return, a,
				fmt.Sprintf("payment %s (client %d, invoked at %s, created at %s): debit %d rupiah, %d coins",
					id, r.Client, at(c), at(r.Return), a.balance, a.coins))
			hc.Debits++
			made++
		}
		if made > 0 {
			continue
		}
		// No answer said "created": the payment took effect if a later
		// answer says the id is used (409) or payment status finds it; its
		// effect then lies between the first send and that answer.
		ret, used, uncertain := end, false, false
		for _, r := range g.reqs {
			switch {
			case r.Outcome == OutcomeDuplicate && r.answered():
				used = true
				ret = min(ret, r.Return)
			case r.Outcome == OutcomeUncertain:
				uncertain = true
			}
		}
		amount := walletState{}
		for _, f := range g.found {
			used = true
			ret = min(ret, f.Return)
			amount = walletState{known: true, balance: f.Amount.BalanceUsed, coins: f.Amount.CoinUsed}
		}
		switch {
		case used:
		case uncertain && !g.missing:
			// Never resolved: its effect, if any, is unknown.
		default:
			continue // refused, or never created
		}
		how := "debit unknown"
		if amount.known {
			how = fmt.Sprintf("debit %d rupiah, %d coins", amount.balance, amount.coins)
		}
		add(g.account, first.Client, stepDebit, call, ret, amount,
			fmt.Sprintf("payment %s (client %d, invoked at %s, answer lost; known to be made by %s): %s",
				id, first.Client, at(call), at(ret), how))
		hc.Debits++
	}
	hc.Operations = hc.Debits + hc.Reads
	hc.Accounts = len(perAccount)

	var accounts []string
	for a := range perAccount {
		accounts = append(accounts, a)
	}
	sort.Strings(accounts)
	var segs []*historySegment
	for _, acct := range accounts {
		items := perAccount[acct]
		sort.SliceStable(items, func(i, j int) bool { return items[i].op.Call < items[j].op.Call })
		cur := walletState{} // the model's state where the next segment starts
		for i := 0; i < len(items); {
			j, reach := i+1, items[i].op.Return
			for j < len(items) && items[j].op.Call <= reach {
				reach = max(reach, items[j].op.Return)
				j++
			}
			s := &historySegment{account: acct}
			start := items[i].op.Call - 1
			s.ops = append(s.ops, porcupine.Operation{ClientId: 0, Input: stepInput{kind: stepStart}, Call: start, Output: cur, Return: start})
			s.desc = append(s.desc, "start "+describeWallet(cur))
			clients := map[int]int{}
			for k, it := range items[i:j] {
				in := it.op.Input.(stepInput)
				in.index = k + 1
				c, ok := clients[it.op.ClientId]
				if !ok {
					c = len(clients)
					clients[it.op.ClientId] = c
				}
				o := it.op
				o.Input, o.ClientId = in, c
				s.ops = append(s.ops, o)
				s.desc = append(s.desc, it.desc)
				cur = advance(cur, in.kind, o.Output.(walletState), j-i == 1)
			}
			segs = append(segs, s)
			i = j
		}
	}
	return segs
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
