package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Recorder writes down what the collector gathers: it counts every result
// and ledger entry in the run's Tally and streams them to results.bin and
// ledger.jsonl in the run's directory, through buffered writers, so that
// a run's memory does not grow with its length.
type Recorder struct {
	Tally *Tally

	dir               string
	resultsF, ledgerF *os.File
	resultsW, ledgerW *bufio.Writer
	resultsEnc        vegeta.Encoder
	headers           http.Header // reused for every result written
	line              []byte      // reused for every ledger line
	err               error       // the first write error
}

// recordBuffer is the size of the writers' buffers: at 10,000 results a
// second (about 1 MB/s to each file) 16 writes a second. It is live heap,
// which the load tester's collector multiplied by five at GOGC 400: 256 KiB
// each made 2.5 MB of its peak heap.
const recordBuffer = 64 << 10

// NewRecorder creates the files of dir (and dir, if missing).
func NewRecorder(dir string, tally *Tally) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rc := &Recorder{Tally: tally, dir: dir, headers: http.Header{}}
	var err error
	if rc.resultsF, err = os.Create(filepath.Join(dir, FileResults)); err != nil {
		return nil, err
	}
	if rc.ledgerF, err = os.Create(filepath.Join(dir, FileLedger)); err != nil {
		_ = rc.resultsF.Close()
		return nil, err
	}
	rc.resultsW, rc.ledgerW = bufio.NewWriterSize(rc.resultsF, recordBuffer), bufio.NewWriterSize(rc.ledgerF, recordBuffer)
	rc.resultsEnc = vegeta.NewEncoder(rc.resultsW)
	return rc, nil
}

// Add records hit result hr.
func (rc *Recorder) Add(hr *HitResult) {
	r := &hr.Result
	if hr.Pay != nil {
		r.TrxID = hr.Pay.ID
		rc.Tally.addPayment(hr.Pay)
		if rc.err == nil {
			if rc.line, rc.err = AppendLedgerLine(rc.line[:0], hr.Pay); rc.err == nil {
				_, rc.err = rc.ledgerW.Write(rc.line)
			}
		}
	}
	first := rc.Tally.add(r)
	if rc.err == nil {
		v := r.vegeta(rc.headers, first)
		v.Seq = r.Order
		rc.err = rc.resultsEnc.Encode(&v)
	}
}

// Close flushes and closes the files, and hands them and the tally to run.
func (rc *Recorder) Close(run *Run) error {
	run.Tally = rc.Tally
	err := errors.Join(rc.err, rc.resultsW.Flush(), rc.ledgerW.Flush(), rc.resultsF.Close(), rc.ledgerF.Close())
	if err != nil {
		return fmt.Errorf("recording into %s: %w", rc.dir, err)
	}
	run.parts = []part{{dir: rc.dir, shard: run.Meta.Shard.Index}}
	return nil
}

// EachResult calls fn with every result of run, one at a time, from the
// files of its parts (each result's Shard set to its part's).
func (run *Run) EachResult(fn func(*Result) error) error {
	for _, p := range run.parts {
		if err := readResults(filepath.Join(p.dir, FileResults), p.shard, fn); err != nil {
			return err
		}
	}
	return nil
}

// readResults calls fn with every result of the results file path.
func readResults(path string, shard int, fn func(*Result) error) error {
	return readFile(path, func(in io.Reader) error {
		dec := vegeta.NewDecoder(in)
		for n := 1; ; n++ {
			var v vegeta.Result
			if err := dec.Decode(&v); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			// Latency is computed from the send time, which the results file
			// stores in Unix nanoseconds: a time outside their range (a result
			// without a timestamp) would come back as another time.
			if !v.Timestamp.Equal(time.Unix(0, v.Timestamp.UnixNano())) {
				return fmt.Errorf("result %d: timestamp %s is out of range", n, v.Timestamp)
			}
			r := fromVegeta(v)
			r.Shard = shard
			if err := fn(&r); err != nil {
				return err
			}
		}
	})
}

// EachPayment calls fn with every ledger entry of run, one at a time, from
// the files of its parts.
func (run *Run) EachPayment(fn func(*Payment) error) error {
	for _, p := range run.parts {
		if err := ReadLedgerFile(filepath.Join(p.dir, FileLedger), fn); err != nil {
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
