package loadtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/tsenart/vegeta/v12/lib/plot"
)

// The files of a run's output directory.
const (
	FileResults = "results.bin" // vegeta results (gob): `vegeta report results.bin`
	FileLedger  = "ledger.jsonl"
	FileShard   = "shard.json" // meta, generator, catalog, wallets: what merge needs besides the above
	FileReport  = "report.json"
	FileText    = "report.txt"
	FilePlot    = "plot.html" // `vegeta plot`-style HTML, corrected and raw latency
)

// Headers added to each vegeta result in the results file, so that merge
// can recompute corrected latency and the verdicts from it.
const (
	headerScheduled = "X-Loadtest-Scheduled" // scheduled send time, Unix nanoseconds
	headerVerdict   = "X-Loadtest-Verdict"   // expected | allowed | unexpected | uncertain
	headerViolation = "X-Loadtest-Violation"
)

// Vegeta returns r as a vegeta result for the results file.
func (r *Result) Vegeta() vegeta.Result {
	v := r.Result
	v.Headers = map[string][]string{headerScheduled: {strconv.FormatInt(r.Scheduled.UnixNano(), 10)}}
	switch {
	case r.Uncertain:
		v.Headers[headerVerdict] = []string{"uncertain"}
	case r.NotDelivered:
		v.Headers[headerVerdict] = []string{"not-delivered"}
	case r.Expected:
		v.Headers[headerVerdict] = []string{"expected"}
	case r.Allowed:
		v.Headers[headerVerdict] = []string{"allowed"}
	default:
		v.Headers[headerVerdict] = []string{"unexpected"}
	}
	if r.Violation != "" {
		v.Headers[headerViolation] = []string{r.Violation}
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
	case "unexpected":
	default:
		r.Expected = v.Code >= 200 && v.Code < 300 && v.Error == ""
		r.Allowed = r.Expected
	}
	r.Violation = h.Get(headerViolation)
	return r
}

// shardFile is the content of shard.json.
type shardFile struct {
	Meta      Meta              `json:"meta"`
	Generator Generator         `json:"generator"`
	Catalog   *Catalog          `json:"catalog,omitempty"`
	Accounts  []AccountSnapshot `json:"accounts"`
}

// WriteArtifacts writes the outcome and its report into dir (created if
// missing): results.bin, ledger.jsonl, shard.json, report.json, report.txt,
// report.html and plot.html.
func WriteArtifacts(dir string, o *Outcome, rep *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, fn func(w io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(f)
		err = fn(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	return errors.Join(
		write(FileResults, func(w io.Writer) error { return WriteResults(w, o.Results) }),
		write(FileLedger, func(w io.Writer) error { return WriteLedger(w, o.Ledger) }),
		write(FileShard, func(w io.Writer) error {
			return writeJSON(w, shardFile{Meta: o.Meta, Generator: o.Generator, Catalog: o.Catalog, Accounts: o.Accounts})
		}),
		write(FileReport, func(w io.Writer) error { return writeJSON(w, rep) }),
		write(FileText, rep.WriteText),
		write(FileHTML, func(w io.Writer) error { return WriteHTML(w, o, rep) }),
		write(FilePlot, func(w io.Writer) error {
			return WritePlot(w, o.Results, "Load test "+o.Meta.RunID+" ("+o.Meta.Scenario+")")
		}),
		writeHistory(dir, o, write),
		writeViolations(o, write),
	)
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WritePlot writes an HTML latency plot (vegeta's lib/plot) with two
// series: corrected latency at the scheduled time, raw latency at the send
// time; each split into OK and ERROR points.
func WritePlot(w io.Writer, results []Result, title string) error {
	p := plot.New(plot.Title(title), plot.Downsample(4000), plot.Label(func(r *vegeta.Result) string {
		if r.Error != "" || r.Code == 0 {
			return r.Attack + " ERROR"
		}
		return r.Attack + " OK"
	}))
	add := func(name string, at func(*Result) time.Time, lat func(*Result) time.Duration) error {
		idx := make([]int, len(results))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return at(&results[idx[a]]).Before(at(&results[idx[b]])) })
		for seq, i := range idx {
			r := &results[i]
			v := vegeta.Result{Attack: name, Seq: uint64(seq), Code: r.Code, Timestamp: at(r), Latency: lat(r), Error: r.Error}
			if err := p.Add(&v); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add("corrected", func(r *Result) time.Time { return r.Scheduled }, (*Result).Corrected); err != nil {
		return err
	}
	if err := add("raw", func(r *Result) time.Time { return r.Timestamp }, func(r *Result) time.Duration { return r.Latency }); err != nil {
		return err
	}
	p.Close()
	_, err := p.WriteTo(w)
	return err
}

// ReadArtifacts reads the outcome a run wrote into dir (results, ledger and
// shard.json), for merging.
func ReadArtifacts(dir string) (*Outcome, error) {
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
	o := &Outcome{Meta: sf.Meta, Generator: sf.Generator, Catalog: sf.Catalog, Accounts: sf.Accounts}

	f, err := os.Open(filepath.Join(dir, FileResults))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened read-only
	dec := vegeta.NewDecoder(bufio.NewReader(f))
	for {
		var v vegeta.Result
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileResults), err)
		}
		// Latency is computed from the send time, which the results file
		// stores in Unix nanoseconds: a time outside their range (a result
		// without a timestamp) would come back as another time.
		if !v.Timestamp.Equal(time.Unix(0, v.Timestamp.UnixNano())) {
			return nil, fmt.Errorf("%s: result %d: timestamp %s is out of range", filepath.Join(dir, FileResults), len(o.Results)+1, v.Timestamp)
		}
		o.Results = append(o.Results, FromVegeta(v))
	}

	lf, err := os.Open(filepath.Join(dir, FileLedger))
	if err != nil {
		return nil, err
	}
	defer func() { _ = lf.Close() }() // opened read-only
	if o.Ledger, err = ReadLedger(bufio.NewReader(lf)); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, FileLedger), err)
	}
	if o.Meta.Reconciled {
		o.Reconciliation = Reconcile(o.Ledger, o.Accounts, o.Meta.Shard.Count == 1 || len(o.Meta.Merged) > 0)
	}
	return o, nil
}

// writeViolations writes violations.jsonl when the reconciliation has
// anything to list.
func writeViolations(o *Outcome, write func(string, func(io.Writer) error) error) error {
	if r := o.Reconciliation; r != nil && len(r.Entries) > 0 {
		return write(FileViolations, func(w io.Writer) error { return WriteViolations(w, r) })
	}
	return nil
}

// writeHistory writes the history of a run with the history check and,
// when the check failed, porcupine's visualisation of the failing part.
func writeHistory(dir string, o *Outcome, write func(string, func(io.Writer) error) error) error {
	if o.HistoryCheck == nil {
		return nil
	}
	err := write(FileHistory, func(w io.Writer) error { return WriteHistory(w, o.History) })
	if o.HistoryCheck.failing != nil {
		err = errors.Join(err, write(FileHistoryHTML, o.HistoryCheck.WriteVisualization))
	}
	return err
}
