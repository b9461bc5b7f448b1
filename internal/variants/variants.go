// Package variants holds test doubles of servers that differ from the
// reference only where the API document allows it: each is the reference
// (possibly with other data of its own) behind an http.Handler decorator.
// Every judge (the suite, the generated mode, the load tester) must pass
// each of them; a judge that fails one holds a rule the document does not.
package variants

import (
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
	// Wrap decorates the reference's handler; ds is the data set it serves.
	Wrap func(ds *reference.Dataset, next http.Handler) http.Handler
	// Warns are the suite's readings the variant departs from: the suite
	// reports each as a warning, and no other.
	Warns []string
	// Skips, when set, is the reason the suite skips the scenarios the
	// variant leaves nothing to observe with; no other scenario may be
	// skipped.
	Skips string
	// Throttled, when set, counts the answers the variant throttled (a
	// rate limit's 429, or 503 with Retry-After): its rewrite changed an
	// answer a judge read when the count grew during the judge's run.
	Throttled *atomic.Int64
}

// Handler builds the variant: the reference over the embedded data set (as
// Data changes it) with the given faults, decorated by Wrap. Its logs are
// discarded.
func (v Variant) Handler(faults ...reference.Fault) (http.Handler, error) {
	ds, err := reference.DefaultDataset()
	if err != nil {
		return nil, err
	}
	if v.Data != nil {
		v.Data(ds)
	}
	st, err := reference.NewStore(ds, reference.WithFaults(faults...))
	if err != nil {
		return nil, err
	}
	h := httpapi.NewServer(slog.New(slog.DiscardHandler), st)
	if v.Wrap == nil {
		return h, nil
	}
	return v.Wrap(ds, h), nil
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
