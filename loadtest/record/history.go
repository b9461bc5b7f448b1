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

// History collects the operations of a run; safe for concurrent use. A nil
// *History records nothing, so that a run without the history check pays
// nothing for it. A History made by NewHistoryFile streams each operation
// to the history file as it completes, through a buffered writer, and
// keeps none; one made as a zero value keeps them in memory.
type History struct {
	mu  sync.Mutex
	ops []HistoryOp

	path   string
	f      *os.File
	w      *bufio.Writer
	err    error // the first encoding or write error
	closed bool
}

// NewHistoryFile returns a History that streams to the history file of
// dir (created if missing).
func NewHistoryFile(dir string) (*History, error) {
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
	if h.f == nil {
		h.mu.Lock()
		h.ops = append(h.ops, op)
		h.mu.Unlock()
		return
	}
	line, err := json.Marshal(&op) // as WriteHistory's encoder writes it
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		h.err = err
	}
	if h.err == nil {
		_, h.err = h.w.Write(append(line, '\n'))
	}
}

// Operations returns a copy of the operations kept in memory: nil for a nil
// *History, never nil otherwise (a history may record nothing).
func (h *History) Operations() []HistoryOp {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return append(make([]HistoryOp, 0, len(h.ops)), h.ops...)
}

// Close flushes and closes the history file and hands the history to o:
// the operations kept in memory, or the file, which o then reads. Nothing
// for a nil *History.
func (h *History) Close(o *Run) error {
	if h == nil {
		return nil
	}
	if h.f == nil {
		o.History = h.Operations()
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
	o.historyFiles = []recordFile{{h.path, o.Meta.Shard.Index}}
	return nil
}

// Discard closes the history file of a run that ends without a record
// (Close was not called); nothing once Close was.
func (h *History) Discard() {
	if h == nil || h.f == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		_ = h.f.Close() // the run failed: what it recorded is not read
	}
}

// HasHistory reports whether o recorded a history (the history check ran),
// in memory or in files.
func (o *Run) HasHistory() bool { return o.History != nil || len(o.historyFiles) > 0 }

// EachHistoryOp calls fn with every operation of o's history: those in
// memory, then those of its files, one at a time.
func (o *Run) EachHistoryOp(fn func(*HistoryOp) error) error {
	for i := range o.History {
		if err := fn(&o.History[i]); err != nil {
			return err
		}
	}
	for _, f := range o.historyFiles {
		if err := readHistoryFile(f.path, fn); err != nil {
			return err
		}
	}
	return nil
}

// readHistoryFile calls fn with every operation of history file path.
func readHistoryFile(path string, fn func(*HistoryOp) error) error {
	return readFile(path, func(r io.Reader) error { return EachHistoryOp(r, fn) })
}

// WriteHistoryFile writes the history of o into dir, unless the run
// streamed it there: from memory and its files (a merge of shards).
func WriteHistoryFile(dir string, o *Run) error {
	return writeRecord(dir, FileHistory, o.History == nil, o.historyFiles, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		return o.EachHistoryOp(func(op *HistoryOp) error { return enc.Encode(op) })
	})
}

// Stamp returns t in Unix nanoseconds.
func Stamp(t time.Time) int64 { return t.UnixNano() }

// WriteHistory writes ops as JSON lines.
func WriteHistory(w io.Writer, ops []HistoryOp) error { return writeJSONLines(w, ops) }

// ReadHistory reads JSON lines written by WriteHistory.
func ReadHistory(r io.Reader) ([]HistoryOp, error) {
	return readJSONLines[HistoryOp](r, "history operation")
}

// EachHistoryOp calls fn with each operation of the JSON lines read from r
// (written by WriteHistory), one at a time.
func EachHistoryOp(r io.Reader, fn func(*HistoryOp) error) error {
	return eachJSONLine(r, "history operation", fn)
}
