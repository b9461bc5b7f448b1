package mutation

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Status is what became of a tried mutant.
type Status string

// The statuses of a tried mutant.
const (
	Killed    Status = "killed"
	Survived  Status = "survived"
	NotViable Status = "not-viable"
)

// Judging is how a run judges its mutants: the killers, in order, the
// bound of each killer command, and each killer's time against the
// reference as it is.
type Judging struct {
	Killers  []string  `json:"killers"`
	BoundSec float64   `json:"bound_seconds"`
	Baseline []float64 `json:"baseline_seconds"`
}

// Header describes a run: what was sampled, with what, and from which
// source. It is the first line of the results file.
type Header struct {
	Seed uint64 `json:"seed"`
	Size int    `json:"size"`
	Judging
	Commit     string    `json:"commit"`
	Files      []string  `json:"files"`
	Enumerated int       `json:"enumerated"` // every mutant of Files
	Started    time.Time `json:"started"`
	Only       []string  `json:"only,omitempty"` // the ids run instead of a sample
	Note       string    `json:"note,omitempty"` // what the report should say of the run (--note)
}

// Result is one tried mutant.
type Result struct {
	Mutant
	ID         string    `json:"id"`
	Status     Status    `json:"status"`
	KilledBy   string    `json:"killed_by,omitempty"` // the killer's name, or "start"
	Because    string    `json:"because,omitempty"`   // the failed scenario or property, a hang, or the server's end
	Outcomes   []Outcome `json:"outcomes,omitempty"`  // each killer run, in order
	BuildError string    `json:"build_error,omitempty"`
	Seconds    float64   `json:"seconds"` // build, start and killers
}

// Footer ends a finished run.
type Footer struct {
	Seconds float64 `json:"seconds"` // wall time of the whole run
	Viable  int     `json:"viable"`
	Tried   int     `json:"tried"`
}

// line is one line of the results file: exactly one field is set.
type line struct {
	Header *Header `json:"header,omitempty"`
	Result *Result `json:"result,omitempty"`
	Footer *Footer `json:"footer,omitempty"`
}

// Record is a run read back: its header, its results, and its footer when
// it finished.
type Record struct {
	Header  Header
	Results []Result
	Footer  *Footer // nil for a run that was interrupted
}

// recorder streams a run to its results file, a line at a time, so that an
// interrupted run keeps what it did.
type recorder struct {
	f   *os.File
	enc *json.Encoder
}

func newRecorder(path string, h Header) (*recorder, error) {
	f, err := os.Create(path) //nolint:gosec // the operator's --results file
	if err != nil {
		return nil, err
	}
	r := &recorder{f: f, enc: json.NewEncoder(f)}
	r.enc.SetEscapeHTML(false)
	return r, r.write(line{Header: &h})
}

func (r *recorder) write(l line) error {
	if err := r.enc.Encode(l); err != nil {
		return err
	}
	return r.f.Sync()
}

func (r *recorder) close() error { return r.f.Close() }

// ReadRecord reads a results file.
func ReadRecord(path string) (*Record, error) {
	f, err := os.Open(path) //nolint:gosec // the operator's --results file
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	return readRecord(f)
}

func readRecord(r io.Reader) (*Record, error) {
	var rec Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("results line %d: %w", n, err)
		}
		switch {
		case l.Header != nil:
			rec.Header = *l.Header
		case l.Result != nil:
			rec.Results = append(rec.Results, *l.Result)
		case l.Footer != nil:
			rec.Footer = l.Footer
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("results: empty")
	}
	return &rec, nil
}
