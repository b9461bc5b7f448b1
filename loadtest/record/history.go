package record

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// FileHistory is the operation history of a run (--check history): one
// JSON line per request, written next to the report.
const FileHistory = "history.jsonl"

// Phases of a run in which an operation was made.
const (
	PhaseBefore  = "before"  // wallet reads before the attack
	PhaseAttack  = "attack"  // the scenario's requests and the history's profile reads
	PhaseResolve = "resolve" // payment status look-ups after the attack
	PhaseAfter   = "after"   // wallet reads after the attack
)

// HistoryOp is one request of a run as the history records it: who sent
// it, what it asked, when it was invoked and when its answer came back,
// and the answer as far as the history check needs it.
type HistoryOp struct {
	// Client is who sent it: the worker (or reader) that made the request.
	Client  int    `json:"client"`
	Phase   string `json:"phase"`
	Op      string `json:"op"` // OpCreate, OpProfile, OpStatus, ...
	Account string `json:"account,omitempty"`
	// ID is the partner_trx_id of a payment creation or status look-up.
	ID string `json:"partner_trx_id,omitempty"`
	// Attempt counts the sends of one partner_trx_id by the retry
	// scenario, from 1; 0 elsewhere.
	Attempt int `json:"attempt,omitempty"`
	// Invoke and Return are Unix nanoseconds. Return is 0 when no answer
	// came back (timeout, lost connection).
	Invoke int64 `json:"invoke"`
	Return int64 `json:"return,omitempty"`
	Code   int   `json:"code,omitempty"`
	// Outcome is the ledger's outcome of a payment creation.
	Outcome string `json:"outcome,omitempty"`
	// Amount is the amount of a created payment, or of a payment found
	// through payment status.
	Amount *Amount `json:"amount,omitempty"`
	// Balance and Coins are what a profile read answered.
	Balance *int64 `json:"balance,omitempty"`
	Coins   *int64 `json:"coins,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Answered reports whether an answer came back.
func (o *HistoryOp) Answered() bool { return o.Return != 0 }

// History collects the operations of a run; safe for concurrent use. A nil
// *History records nothing, so that a run without the history check pays
// nothing for it.
type History struct {
	mu  sync.Mutex
	ops []HistoryOp
}

// Add records op.
func (h *History) Add(op HistoryOp) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// Operations returns a copy of the recorded operations: nil for a nil
// *History, never nil otherwise (a history may record nothing).
func (h *History) Operations() []HistoryOp {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(make([]HistoryOp, 0, len(h.ops)), h.ops...)
}

// Stamp returns t in Unix nanoseconds.
func Stamp(t time.Time) int64 { return t.UnixNano() }

// WriteHistory writes ops as JSON lines.
func WriteHistory(w io.Writer, ops []HistoryOp) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range ops {
		if err := enc.Encode(&ops[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadHistory reads JSON lines written by WriteHistory.
func ReadHistory(r io.Reader) ([]HistoryOp, error) {
	dec := json.NewDecoder(r)
	var out []HistoryOp
	for {
		var op HistoryOp
		err := dec.Decode(&op)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("history operation %d: %w", len(out)+1, err)
		}
		out = append(out, op)
	}
}
