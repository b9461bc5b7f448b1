package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/partnercommerce/conformance/internal/atomicfile"
)

// The files of a run's output directory.
const (
	FileResults = "results.bin" // vegeta results (gob): `vegeta report results.bin`
	FileLedger  = "ledger.jsonl"
	FileShard   = "shard.json" // meta, generator, catalog, wallets: what merge needs besides the above
)

// Headers added to each vegeta result in the results file, so that merge
// can recompute corrected latency and the verdicts from it.
const (
	headerScheduled = "X-Loadtest-Scheduled" // scheduled send time, Unix nanoseconds
	headerVerdict   = "X-Loadtest-Verdict"   // expected | allowed | throttled | unexpected | uncertain | not-delivered
	headerViolation = "X-Loadtest-Violation"
	headerTrxID     = "X-Loadtest-Trx-Id"  // the partner_trx_id of an unexpected payment answer, for the error set
	headerExhibit   = "X-Loadtest-Exhibit" // the first request of a distinct unexpected answer and its answer (JSON), for the findings
)

// vegeta is r as a vegeta result for the results file, with the load
// tester's headers in h, which it clears first (the recorder reuses one
// map for every result it writes); first is the first result of its
// distinct unexpected answer, whose exhibit the file keeps.
func (r *Result) vegeta(h http.Header, first bool) vegeta.Result {
	v := r.Result
	clear(h)
	v.Headers = h
	h[headerScheduled] = []string{strconv.FormatInt(r.Scheduled.UnixNano(), 10)}
	switch {
	case r.Uncertain:
		h[headerVerdict] = []string{"uncertain"}
	case r.NotDelivered:
		h[headerVerdict] = []string{"not-delivered"}
	case r.Throttled:
		h[headerVerdict] = []string{"throttled"}
	case r.Gateway:
		h[headerVerdict] = []string{"gateway"}
	case r.Expected && r.Allowed && r.Code >= 200 && r.Code < 300 && r.Error == "":
		// What fromVegeta reads from a result without a verdict: the
		// common case spares a header in every result.
	case r.Expected:
		h[headerVerdict] = []string{"expected"}
	case r.Allowed:
		h[headerVerdict] = []string{"allowed"}
	default:
		h[headerVerdict] = []string{"unexpected"}
	}
	if r.Violation != "" {
		h[headerViolation] = []string{r.Violation}
	}
	if r.TrxID != "" && !r.Expected {
		h[headerTrxID] = []string{r.TrxID}
	}
	if first && r.Exhibit != nil {
		if b, err := json.Marshal(r.Exhibit); err == nil {
			h[headerExhibit] = []string{string(b)}
		}
	}
	return v
}

// fromVegeta rebuilds a Result from a vegeta result the recorder wrote. A
// result without the load tester's headers (from plain vegeta) counts its
// send time as scheduled and 2xx without error as expected.
func fromVegeta(v vegeta.Result) Result {
	r := Result{Result: v, Op: v.Attack, Scheduled: v.Timestamp}
	h := v.Headers
	r.Headers = nil
	if s := h.Get(headerScheduled); s != "" {
		if ns, err := strconv.ParseInt(s, 10, 64); err == nil {
			r.Scheduled = time.Unix(0, ns)
		}
	}
	switch h.Get(headerVerdict) {
	case "expected":
		r.Expected, r.Allowed = true, true
	case "allowed":
		r.Allowed = true
	case "uncertain":
		r.Uncertain = true
	case "not-delivered":
		r.NotDelivered = true
	case "throttled":
		r.Throttled, r.Allowed = true, true
	case "gateway":
		r.Gateway = true
	case "unexpected":
	default:
		r.Expected = v.Code >= 200 && v.Code < 300 && v.Error == ""
		r.Allowed = r.Expected
	}
	r.Violation = h.Get(headerViolation)
	r.TrxID = h.Get(headerTrxID)
	if x := h.Get(headerExhibit); x != "" {
		var e Exhibit
		if json.Unmarshal([]byte(x), &e) == nil {
			r.Exhibit = &e
		}
	}
	return r
}

// shardFile is the content of shard.json.
type shardFile struct {
	Meta      Meta              `json:"meta"`
	Generator Generator         `json:"generator"`
	Catalog   *Catalog          `json:"catalog,omitempty"`
	Accounts  []AccountSnapshot `json:"accounts"`
}

// WriteDir writes the record of run into dir (created if missing):
// results.bin and ledger.jsonl, unless they are there already (a run
// writes them as it goes; a merge writes its shards' here), and
// shard.json.
func WriteDir(dir string, run *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return errors.Join(
		run.writeRecord(dir, FileResults, func(w io.Writer) error { return writeResults(w, run) }),
		run.writeRecord(dir, FileLedger, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			return run.EachPayment(func(p *Payment) error { return enc.Encode(p) })
		}),
		WriteFile(dir, FileShard, func(w io.Writer) error {
			return WriteJSON(w, shardFile{Meta: run.Meta, Generator: run.Generator, Catalog: run.Catalog, Accounts: run.Accounts})
		}),
	)
}

// WriteFile writes the file name into dir through a buffer, fn giving its
// content, whole or not at all (atomicfile); its errors name the file.
func WriteFile(dir, name string, fn func(w io.Writer) error) error {
	if err := atomicfile.Write(filepath.Join(dir, name), fn); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON, as the run directory's JSON files
// are.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeRecord writes the file name of run into dir with fn, unless it is
// there already: the one part of a run recorded into dir.
func (run *Run) writeRecord(dir, name string, fn func(io.Writer) error) error {
	if len(run.parts) == 1 && sameFile(filepath.Join(run.parts[0].dir, name), filepath.Join(dir, name)) {
		return nil
	}
	return WriteFile(dir, name, fn)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeResults writes the results of run: the file of a run as it is, or
// those of a merge's parts (the shards) in the parts' order, each
// operation's sequence numbers renumbered 0, 1, 2, ... in the order
// written.
func writeResults(w io.Writer, run *Run) error {
	if len(run.parts) == 1 {
		return readFile(filepath.Join(run.parts[0].dir, FileResults), func(r io.Reader) error {
			_, err := io.Copy(w, r)
			return err
		})
	}
	seq := map[string]uint64{}
	enc := vegeta.NewEncoder(w)
	h := http.Header{}
	firsts := errorTally{}
	return run.EachResult(func(r *Result) error {
		v := r.vegeta(h, firsts.add(r))
		v.Seq = seq[v.Attack]
		seq[v.Attack]++
		return enc.Encode(&v)
	})
}

// ReadDir reads the record a shard wrote into dir (shard.json), for
// Merge: its results, ledger and history (when the run had the history
// check) stay in their files, which are read one entry at a time.
func ReadDir(dir string) (*Run, error) {
	var sf shardFile
	b, err := os.ReadFile(filepath.Join(dir, FileShard))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileShard), err)
	}
	if err := sf.Meta.Shard.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileShard), err)
	}
	for _, f := range []string{FileResults, FileLedger} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, err
		}
	}
	_, err = os.Stat(filepath.Join(dir, FileHistory)) // a run with the history check
	return &Run{Meta: sf.Meta, Generator: sf.Generator, Catalog: sf.Catalog, Accounts: sf.Accounts,
		parts: []part{{dir: dir, shard: sf.Meta.Shard.Index, history: err == nil}}}, nil
}

// FileNemesisLog is where the fault commands' output goes.
const FileNemesisLog = "nemesis.log"
