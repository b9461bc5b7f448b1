package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// recordFile is a results or ledger file of a run, with the index of the
// shard that wrote it.
type recordFile struct {
	path  string
	shard int
}

// Recorder keeps what the collector gathers: it counts every result and
// ledger entry in the run's Tally and either streams them to results.bin
// and ledger.jsonl in the run directory (WithRecordDir), through buffered
// writers, or keeps them in memory. The ledger of a reconciled run is kept
// in memory too: the look-ups after the attack fill it in.
type Recorder struct {
	Tally *Tally

	results    chunked[Result]
	ledger     chunked[Payment]
	keepLedger bool

	dir               string
	resultsF, ledgerF *os.File
	resultsW, ledgerW *bufio.Writer
	resultsEnc        vegeta.Encoder
	headers           http.Header // reused for every result written
	line              []byte      // reused for every ledger line
	err               error       // the first write error
	resultsFile       string
	ledgerFile        string
}

// recordBuffer is the size of the writers' buffers.
const recordBuffer = 256 << 10

// NewRecorder opens the files of dir ("" keeps everything in memory).
// size is how many results to make room for when they are kept in memory.
func NewRecorder(dir string, keepLedger bool, tally *Tally, size int) (*Recorder, error) {
	rc := &Recorder{Tally: tally, dir: dir, keepLedger: keepLedger || dir == ""}
	if dir == "" {
		rc.results.cur, rc.ledger.cur = make([]Result, 0, size), make([]Payment, 0, size)
		return rc, nil
	}
	if keepLedger {
		rc.ledger.cur = make([]Payment, 0, size)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var err error
	rc.resultsFile, rc.ledgerFile = filepath.Join(dir, FileResults), filepath.Join(dir, FileLedger)
	if rc.resultsF, err = os.Create(rc.resultsFile); err != nil {
		return nil, err
	}
	if rc.ledgerF, err = os.Create(rc.ledgerFile); err != nil {
		_ = rc.resultsF.Close()
		return nil, err
	}
	rc.resultsW, rc.ledgerW = bufio.NewWriterSize(rc.resultsF, recordBuffer), bufio.NewWriterSize(rc.ledgerF, recordBuffer)
	rc.resultsEnc, rc.headers = vegeta.NewEncoder(rc.resultsW), http.Header{}
	return rc, nil
}

// LedgerFile is the ledger file the recorder streams to; "" when it keeps
// everything in memory.
func (rc *Recorder) LedgerFile() string { return rc.ledgerFile }

// Add records hit result hr.
func (rc *Recorder) Add(hr *HitResult) {
	r := &hr.Result
	if hr.Pay != nil {
		r.TrxID = hr.Pay.ID
		rc.Tally.addPayment(hr.Pay)
		if rc.keepLedger {
			rc.ledger.add(hr.Pay)
		}
		if rc.ledgerW != nil && rc.err == nil {
			if rc.line, rc.err = AppendLedgerLine(rc.line[:0], hr.Pay); rc.err == nil {
				_, rc.err = rc.ledgerW.Write(rc.line)
			}
		}
	}
	rc.Tally.add(r)
	if rc.resultsEnc == nil {
		rc.results.add(r)
		return
	}
	if rc.err == nil {
		v := r.vegeta(rc.headers)
		v.Seq = r.Order
		rc.err = rc.resultsEnc.Encode(&v)
	}
}

// Close flushes and closes the files, and hands what was kept to o.
func (rc *Recorder) Close(o *Run) error {
	rc.Tally.Close()
	o.Tally = rc.Tally
	o.Results, o.Ledger = rc.results.all(), rc.ledger.all()
	sort.Slice(o.Results, func(i, j int) bool { return o.Results[i].Seq < o.Results[j].Seq })
	sort.Slice(o.Ledger, func(i, j int) bool { return o.Ledger[i].Seq < o.Ledger[j].Seq })
	if rc.dir == "" {
		return nil
	}
	err := errors.Join(rc.err, rc.resultsW.Flush(), rc.ledgerW.Flush(), rc.resultsF.Close(), rc.ledgerF.Close())
	if err != nil {
		return fmt.Errorf("recording into %s: %w", rc.dir, err)
	}
	o.resultFiles = []recordFile{{rc.resultsFile, o.Meta.Shard.Index}}
	if !rc.keepLedger {
		o.ledgerFiles = []recordFile{{rc.ledgerFile, o.Meta.Shard.Index}}
	}
	return nil
}

// EachResult calls fn with every result of o: those in memory, then those
// of its files (each result's Shard set to its file's), one at a time.
func (o *Run) EachResult(fn func(*Result) error) error {
	for i := range o.Results {
		if err := fn(&o.Results[i]); err != nil {
			return err
		}
	}
	for _, f := range o.resultFiles {
		if err := readResults(f, fn); err != nil {
			return err
		}
	}
	return nil
}

// readResults calls fn with every result of results file f.
func readResults(f recordFile, fn func(*Result) error) error {
	in, err := os.Open(f.path)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // opened read-only
	dec := vegeta.NewDecoder(bufio.NewReaderSize(in, recordBuffer))
	for n := 1; ; n++ {
		var v vegeta.Result
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: %w", f.path, err)
		}
		// Latency is computed from the send time, which the results file
		// stores in Unix nanoseconds: a time outside their range (a result
		// without a timestamp) would come back as another time.
		if !v.Timestamp.Equal(time.Unix(0, v.Timestamp.UnixNano())) {
			return fmt.Errorf("%s: result %d: timestamp %s is out of range", f.path, n, v.Timestamp)
		}
		r := FromVegeta(v)
		r.Shard = f.shard
		if err := fn(&r); err != nil {
			return err
		}
	}
}

// EachPayment calls fn with every ledger entry of o: those in memory, then
// those of its files. A Run is the LedgerSource reconciliation reads.
func (o *Run) EachPayment(fn func(*Payment) error) error {
	if err := Payments(o.Ledger).EachPayment(fn); err != nil {
		return err
	}
	for _, f := range o.ledgerFiles {
		if err := ReadLedgerFile(f.path, fn); err != nil {
			return err
		}
	}
	return nil
}

// ReadLedgerFile calls fn with every entry of ledger file path, one at a
// time.
func ReadLedgerFile(path string, fn func(*Payment) error) error {
	return readFile(path, func(r io.Reader) error { return EachLedgerEntry(r, fn) })
}

// readFile reads the file path through a buffer with read; its errors name
// the file.
func readFile(path string, read func(io.Reader) error) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // opened read-only
	if err := read(bufio.NewReaderSize(in, recordBuffer)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
