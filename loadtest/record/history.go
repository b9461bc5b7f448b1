package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// History streams the operations of a run to its history file, through a
// buffered writer, as each completes; safe for concurrent use. A nil
// *History records nothing, so that a run without the history check pays
// nothing for it.
type History struct {
	mu     sync.Mutex
	path   string
	f      *os.File
	w      *bufio.Writer
	err    error // the first encoding or write error
	closed bool
}

// NewHistory returns a History that streams to the history file of dir
// (created if missing).
func NewHistory(dir string) (*History, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileHistory)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &History{path: path, f: f, w: bufio.NewWriterSize(f, recordBuffer)}, nil
}

// Add records op.
func (h *History) Add(op HistoryOp) {
	if h == nil {
		return
	}
	line, err := json.Marshal(&op) // as an encoding/json encoder writes it
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		h.err = err
	}
	if h.err == nil {
		_, h.err = h.w.Write(append(line, '\n'))
	}
}

// Close flushes and closes the history file, which run then reads.
// Nothing for a nil *History.
func (h *History) Close(run *Run) error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return errors.New("recording the history: closed twice")
	}
	h.closed = true
	if err := errors.Join(h.err, h.w.Flush(), h.f.Close()); err != nil {
		return fmt.Errorf("recording the history into %s: %w", h.path, err)
	}
	for i := range run.parts {
		run.parts[i].history = true
	}
	return nil
}

// Discard closes the history file of a run that ends without a record
// (Close was not called); nothing once Close was.
func (h *History) Discard() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		_ = h.f.Close() // the run failed: what it recorded is not read
	}
}

// HasHistory reports whether run recorded a history (the history check
// ran).
func (run *Run) HasHistory() bool {
	for _, p := range run.parts {
		if p.history {
			return true
		}
	}
	return false
}

// EachHistoryOp calls fn with every operation of run's history, one at a
// time, from the history files of its parts.
func (run *Run) EachHistoryOp(fn func(*HistoryOp) error) error {
	for _, p := range run.parts {
		if !p.history {
			continue
		}
		err := readFile(filepath.Join(p.dir, FileHistory), func(r io.Reader) error { return EachHistoryOp(r, fn) })
		if err != nil {
			return err
		}
	}
	return nil
}

// WriteHistoryFile writes the history of run into dir, unless it is there
// already.
func WriteHistoryFile(dir string, run *Run) error {
	return run.writeRecord(dir, FileHistory, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		return run.EachHistoryOp(func(op *HistoryOp) error { return enc.Encode(op) })
	})
}

// Stamp returns t in Unix nanoseconds.
func Stamp(t time.Time) int64 { return t.UnixNano() }

// EachHistoryOp calls fn with each operation of the JSON lines read from r
// (as an encoding/json encoder writes them), one at a time.
func EachHistoryOp(r io.Reader, fn func(*HistoryOp) error) error {
	return eachJSONLine(r, "history operation", fn)
}
