package mutation

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/partnercommerce/conformance/internal/atomicfile"
)

// Ledger is the record of the whole enumeration (docs/mutation-ledger.jsonl,
// in the repository): the verdict of every mutant tried, each with the
// hashes of its file and of the killer it was judged under (hash.go), and
// the parts, the runs that tried them. A run appends each verdict as it
// comes, so that a run cut short keeps what it did, and rewrites the
// ledger whole at its start and its end: the last verdict of each of
// today's mutants, sorted by file and line.
//
// A verdict is current when both hashes are today's; a run tries the
// mutants without a current verdict and no other.
type Ledger struct {
	Parts   []Part
	Entries []Entry
}

// Part is one run of the whole enumeration, which may be a piece of it
// (--limit, --for, or a run cut short).
type Part struct {
	ID         int       `json:"id"`
	Started    time.Time `json:"started"`
	Commit     string    `json:"commit"`
	KillerHash string    `json:"killer_hash"`
	Judging
	Seconds float64 `json:"seconds,omitempty"`
	// Ended says why the part stopped: every mutant tried ("done"),
	// --limit ("limit"), --for ("for") or an interruption
	// ("interrupted"); empty when it could not say (the process was
	// killed).
	Ended string `json:"ended,omitempty"`
}

// Entry is one mutant's verdict in the ledger.
type Entry struct {
	Result
	Part       int    `json:"part"`
	FileHash   string `json:"file_hash"`
	KillerHash string `json:"killer_hash"`
}

// ledgerLine is one line of the ledger: exactly one field is set.
type ledgerLine struct {
	Part   *Part  `json:"part,omitempty"`
	Mutant *Entry `json:"mutant,omitempty"`
}

// ReadLedger reads a ledger; a missing file is an empty ledger. A last
// line cut short (no newline: the process was killed while writing it) is
// left out; any other line that does not parse is an error. A later line
// for the same mutant or part replaces an earlier one.
func ReadLedger(path string) (*Ledger, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the operator's --ledger file
	if errors.Is(err, os.ErrNotExist) {
		return &Ledger{}, nil
	}
	if err != nil {
		return nil, err
	}
	l := &Ledger{}
	n := 0
	for len(data) > 0 {
		n++
		text, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		var ll ledgerLine
		if err := json.Unmarshal(text, &ll); err != nil {
			if !complete {
				break // cut short by a kill: the next run tries that mutant again
			}
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		switch {
		case ll.Part != nil:
			l.setPart(*ll.Part)
		case ll.Mutant != nil:
			l.Entries = append(l.Entries, *ll.Mutant)
		}
	}
	return l, nil
}

func (l *Ledger) setPart(p Part) {
	if i := slices.IndexFunc(l.Parts, func(q Part) bool { return q.ID == p.ID }); i >= 0 {
		l.Parts[i] = p
		return
	}
	l.Parts = append(l.Parts, p)
}

// nextPart is the id of a new part.
func (l *Ledger) nextPart() int {
	id := 0
	for _, p := range l.Parts {
		id = max(id, p.ID)
	}
	return id + 1
}

// compact keeps the last entry of each of today's mutants (all), and the
// parts those entries name, sorted.
func (l *Ledger) compact(all []Mutant) {
	today := make(map[Key]bool, len(all))
	for _, m := range all {
		today[m.normal()] = true
	}
	last := map[Key]int{}
	for i, e := range l.Entries {
		if today[e.normal()] {
			last[e.normal()] = i
		}
	}
	entries := make([]Entry, 0, len(last))
	used := map[int]bool{}
	for i, e := range l.Entries {
		if last[e.normal()] == i && today[e.normal()] {
			entries = append(entries, e)
			used[e.Part] = true
		}
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.ID, b.ID))
	})
	l.Entries = entries
	l.Parts = slices.DeleteFunc(l.Parts, func(p Part) bool { return !used[p.ID] })
	slices.SortFunc(l.Parts, func(a, b Part) int { return cmp.Compare(a.ID, b.ID) })
}

// Write writes the ledger whole, replacing path at once.
func (l *Ledger) Write(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := newLineEncoder(w)
		for i := range l.Parts {
			if err := enc.Encode(ledgerLine{Part: &l.Parts[i]}); err != nil {
				return err
			}
		}
		for i := range l.Entries {
			if err := enc.Encode(ledgerLine{Mutant: &l.Entries[i]}); err != nil {
				return err
			}
		}
		return nil
	})
}

func newLineEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// index is the ledger's last entry of each mutant.
func (l *Ledger) index() map[Key]Entry {
	out := make(map[Key]Entry, len(l.Entries))
	for _, e := range l.Entries {
		out[e.normal()] = e
	}
	return out
}

// Verdicts splits today's mutants by what the ledger holds of each:
// current is the entries of the ones judged under today's hashes, stale
// the mutants judged under another file or killer, and untried the others.
func (l *Ledger) Verdicts(src *Source) (current []Entry, stale, untried []Mutant) {
	idx := l.index()
	for _, m := range src.Mutants {
		e, ok := idx[m.normal()]
		switch {
		case !ok:
			untried = append(untried, m)
		case e.FileHash != src.FileHashes[m.File] || e.KillerHash != src.KillerHash:
			stale = append(stale, m)
		default:
			current = append(current, e)
		}
	}
	return current, stale, untried
}

// lockLedger takes the lock of the ledger's folder, which one run holds
// at a time: two runs would each rewrite the ledger without the other's
// verdicts. The kernel lets it go when the process ends, however it ends.
func lockLedger(path string) (unlock func(), err error) {
	dir, err := os.Open(filepath.Dir(path)) //nolint:gosec // the operator's --ledger folder
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = dir.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another run holds the ledger's folder %s: one run at a time", filepath.Dir(path))
		}
		return nil, fmt.Errorf("locking %s: %w", filepath.Dir(path), err)
	}
	return func() { _ = dir.Close() }, nil
}

// appender adds lines to a ledger as a run goes, each synced to disk.
type appender struct {
	f   *os.File
	buf *bufio.Writer
	enc *json.Encoder
}

func appendTo(path string) (*appender, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644) //nolint:gosec // the operator's --ledger file
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriter(f)
	return &appender{f: f, buf: buf, enc: newLineEncoder(buf)}, nil
}

func (a *appender) write(l ledgerLine) error {
	if err := a.enc.Encode(l); err != nil {
		return err
	}
	if err := a.buf.Flush(); err != nil {
		return err
	}
	return a.f.Sync()
}

func (a *appender) close() error { return a.f.Close() }

// forLedger is r without what the ledger need not keep: every failure and
// the killers' last lines, which Because sums up.
func (r Result) forLedger() Result {
	r.Outcomes = slices.Clone(r.Outcomes)
	for i := range r.Outcomes {
		r.Outcomes[i].Failures, r.Outcomes[i].Said = nil, nil
	}
	return r
}
