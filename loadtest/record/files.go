package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
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
	headerTrxID     = "X-Loadtest-Trx-Id" // the partner_trx_id of an unexpected payment answer, for the error set
)

// Vegeta returns r as a vegeta result for the results file.
func (r *Result) Vegeta() vegeta.Result { return r.vegeta(http.Header{}) }

// vegeta is Vegeta with the headers in h, which it clears first (the
// recorder reuses one map for every result it writes).
func (r *Result) vegeta(h http.Header) vegeta.Result {
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
	case r.Expected && r.Allowed && r.Code >= 200 && r.Code < 300 && r.Error == "":
		// What FromVegeta reads from a result without a verdict: the
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
	return v
}

// FromVegeta rebuilds a Result from a vegeta result written by Vegeta. A
// result without the load tester's headers (from plain vegeta) counts its
// send time as scheduled and 2xx without error as expected.
func FromVegeta(v vegeta.Result) Result {
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
	case "unexpected":
	default:
		r.Expected = v.Code >= 200 && v.Code < 300 && v.Error == ""
		r.Allowed = r.Expected
	}
	r.Violation = h.Get(headerViolation)
	r.TrxID = h.Get(headerTrxID)
	return r
}

// shardFile is the content of shard.json.
type shardFile struct {
	Meta      Meta              `json:"meta"`
	Generator Generator         `json:"generator"`
	Catalog   *Catalog          `json:"catalog,omitempty"`
	Accounts  []AccountSnapshot `json:"accounts"`
}

// WriteDir writes the record of o into dir (created if missing):
// results.bin and ledger.jsonl, unless the run streamed them there, and
// shard.json.
func WriteDir(dir string, o *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return errors.Join(
		writeRecord(dir, FileResults, o.Results == nil, o.resultFiles, func(w io.Writer) error { return writeResults(w, o) }),
		writeRecord(dir, FileLedger, o.Ledger == nil, o.ledgerFiles, func(w io.Writer) error { return writeLedger(w, o) }),
		WriteFile(dir, FileShard, func(w io.Writer) error {
			return WriteJSON(w, shardFile{Meta: o.Meta, Generator: o.Generator, Catalog: o.Catalog, Accounts: o.Accounts})
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

// writeRecord writes the results or ledger file name into dir, unless the
// run already streamed it there (streamed, from that one file).
func writeRecord(dir, name string, streamed bool, from []recordFile, fn func(io.Writer) error) error {
	if streamed && len(from) == 1 && sameFile(from[0].path, filepath.Join(dir, name)) {
		return nil
	}
	return WriteFile(dir, name, fn)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeResults writes the results of o: those in memory sorted as
// WriteResults sorts them, those of files (a merge of shards) in the
// files' order, each operation's sequence numbers renumbered 0, 1, 2, ...
// in the order written.
func writeResults(w io.Writer, o *Run) error {
	if len(o.resultFiles) == 0 {
		return WriteResults(w, o.Results)
	}
	seq := map[string]uint64{}
	enc := vegeta.NewEncoder(w)
	return o.EachResult(func(r *Result) error {
		v := r.Vegeta()
		v.Seq = seq[v.Attack]
		seq[v.Attack]++
		return enc.Encode(&v)
	})
}

// writeLedger writes the ledger of o, from memory and its files.
func writeLedger(w io.Writer, o *Run) error {
	enc := json.NewEncoder(w)
	return o.EachPayment(func(p *Payment) error { return enc.Encode(p) })
}

// WriteResults writes results as a vegeta results file that `vegeta plot`,
// `vegeta report` and `vegeta encode` read: in send-time order, with each
// attack's (operation's) sequence numbers renumbered 0, 1, 2, ... in that
// order, as vegeta's plot requires (results of a concurrent run finish out
// of order, and the hit numbers of the mixed scenario's operations
// interleave). The results themselves are not changed.
func WriteResults(w io.Writer, results []Result) error {
	idx := make([]int, len(results))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return results[idx[a]].Timestamp.Before(results[idx[b]].Timestamp) })
	seq := map[string]uint64{}
	enc := vegeta.NewEncoder(w)
	for _, i := range idx {
		v := results[i].Vegeta()
		v.Seq = seq[v.Attack]
		seq[v.Attack]++
		if err := enc.Encode(&v); err != nil {
			return err
		}
	}
	return nil
}

// ReadDir reads the record a run wrote into dir (shard.json): its
// results, ledger and history (when the run had the history check) stay
// in their files, which merging, reports, reconciliation and the history
// check read one entry at a time.
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
	o := &Run{Meta: sf.Meta, Generator: sf.Generator, Catalog: sf.Catalog, Accounts: sf.Accounts,
		resultFiles: []recordFile{{filepath.Join(dir, FileResults), sf.Meta.Shard.Index}},
		ledgerFiles: []recordFile{{filepath.Join(dir, FileLedger), sf.Meta.Shard.Index}}}
	for _, f := range []string{FileResults, FileLedger} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FileHistory)); err == nil { // a run with the history check
		o.historyFiles = []recordFile{{filepath.Join(dir, FileHistory), sf.Meta.Shard.Index}}
	}
	return o, nil
}

// FileNemesisLog is where the fault commands' output goes.
const FileNemesisLog = "nemesis.log"
