// Package variants holds test doubles of servers that differ from the
// reference only where the API document allows it: each is the reference
// (possibly with other data of its own) behind an http.Handler decorator.
// Every judge (the suite, the generated mode, the load tester, the
// concurrency probe) must pass each of them; a judge that fails one holds a
// rule the document does not.
//
// A double that changes no answer proves nothing, so a served double counts
// the answers it changed (Double.Changed): an answer that the reference
// over the embedded data set would not have given. Each judge's test of the
// doubles fails when its run saw none, unless the double names that judge
// in Unseen, with the reason it cannot observe the double.
package variants

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// A Variant is one legal alternative to the reference.
type Variant struct {
	Name string
	// Why cites what in the document allows the variant.
	Why string
	// Data, when set, changes the data set the reference is built from: a
	// server with data of its own.
	Data func(ds *reference.Dataset)
	// Options set a behaviour of the reference that the document allows
	// and the reference does not choose (reference.WithWalletTakenWhenPaid).
	Options []reference.Option
	// Edit, when set, rewrites each answer of the reference whose body is
	// a JSON object: its status and its body (numbers kept exact). An
	// answer it changes is counted changed.
	Edit func(r *http.Request, status *int, body map[string]any)
	// Wrap decorates the reference's handler (after Edit); ds is the data
	// set it serves.
	Wrap func(ds *reference.Dataset, next http.Handler) http.Handler
	// Warns are the suite's readings the variant departs from: the suite
	// reports each as a warning, and no other.
	Warns []string
	// NotJudged, when set, is the cause of the scenarios the variant
	// leaves nothing to observe with (it refuses what they need, as the
	// document allows): the suite does not judge their rules, and a run
	// against the variant is INCOMPLETE (exit 2), never PASS, nor FAIL. No
	// other scenario may go unjudged or be skipped.
	NotJudged string
	// Unseen names the judges that cannot observe the variant, each with
	// the reason (the load tester never synchronizes the catalog, for
	// one). Every other judge must see it change an answer during its run.
	Unseen map[Judge]string
	// Throttled, when set, counts the answers the variant throttled (a
	// rate limit's 429, or 503 with Retry-After): its rewrite changed an
	// answer a judge read when the count grew during the judge's run.
	Throttled *atomic.Int64
}

// Judge is one of the judges every variant must pass.
type Judge string

// The judges.
const (
	Suite      Judge = "suite"
	Generated  Judge = "generated mode"
	LoadTester Judge = "load tester"
	Probe      Judge = "concurrency probe"
)

// Double is a variant served: the reference behind the variant's
// decoration, counting the answers the decoration changed.
type Double struct {
	next    http.Handler
	changed atomic.Int64
}

// Changed is the number of answers the double changed so far: answers the
// reference over the embedded data set would not have given.
func (d *Double) Changed() int64 { return d.changed.Load() }

// ServeHTTP serves r and counts its answer when the decoration changed it.
func (d *Double) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var mark bool
	d.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), changeKey{}, &mark)))
	if mark {
		d.changed.Add(1)
	}
}

// changeKey keys the mark of a request whose answer a double changed.
type changeKey struct{}

// changed marks the answer to r as changed by the double: a double calls
// it wherever its answer differs from the reference's (an answer it
// rewrote, a request it answered itself, a throttled request). An answer
// is counted once however often it is marked.
func changed(r *http.Request) {
	if mark, ok := r.Context().Value(changeKey{}).(*bool); ok {
		*mark = true
	}
}

// Handler builds the variant (Double) as a plain handler.
func (v Variant) Handler(faults ...reference.Fault) (http.Handler, error) {
	d, err := v.Double(faults...)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Double builds the variant: the reference over the embedded data set (as
// Data changes it) with the given faults, its answers rewritten by Edit and
// decorated by Wrap. Its logs are
// discarded.
func (v Variant) Double(faults ...reference.Fault) (*Double, error) {
	ds, err := reference.DefaultDataset()
	if err != nil {
		return nil, err
	}
	if v.Data != nil {
		v.Data(ds)
	}
	st, err := reference.NewStore(ds, append([]reference.Option{reference.WithFaults(faults...)}, v.Options...)...)
	if err != nil {
		return nil, err
	}
	h := httpapi.NewServer(slog.New(slog.DiscardHandler), st)
	if v.Edit != nil {
		h = rewriteJSON(h, func(r *http.Request, _ []byte, status *int, body map[string]any) { v.Edit(r, status, body) })
	}
	if v.Wrap != nil {
		h = v.Wrap(ds, h)
	}
	return &Double{next: h}, nil
}

// CheckChanged checks the run of judge j in which the double changed n
// answers: a judge that can observe the variant (not in Unseen) must have
// seen it change at least one.
func (v Variant) CheckChanged(j Judge, n int64) error {
	if _, unseen := v.Unseen[j]; unseen || n > 0 {
		return nil
	}
	return fmt.Errorf("%q changed no answer during the %s's run: passing it proves nothing (give it data of its own that shows it, or name the %s in Unseen with the reason)", v.Name, j, j)
}

// Named returns the variant called name, or false.
func Named(name string) (Variant, bool) {
	for _, v := range All() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}
