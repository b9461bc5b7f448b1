package record

import (
	"fmt"
	"sort"
)

// ErrorEntry is one distinct unexpected answer of a run, as vegeta's error
// set lists them: the operation, the status code (0: no answer) and the
// error or violation, how many requests got it, and the first of them.
type ErrorEntry struct {
	Op    string `json:"op"`
	Code  uint16 `json:"code"`
	Error string `json:"error"`
	Count int    `json:"count"`
	// Example is the first request that got it: its partner_trx_id for a
	// payment (else its sequence number in the run), method and URL.
	Example string `json:"example"`
	// Exhibit is that first request with its body, and its answer.
	Exhibit *Exhibit `json:"exhibit,omitempty"`
}

// maxErrorEntries bounds the error set of a report.
const maxErrorEntries = 20

// maxTrackedErrors bounds the distinct unexpected answers a run counts one
// by one; answers first seen after that many are counted together (a
// server whose every error message differs would otherwise grow the set
// with the run).
const maxTrackedErrors = 1000

// errorKey identifies a distinct unexpected answer.
type errorKey struct {
	op   string
	code uint16
	err  string
}

// errorTally counts the distinct unexpected answers of a run, in memory
// bounded by maxTrackedErrors.
type errorTally struct {
	at      map[errorKey]int
	entries []ErrorEntry
	// others counts the unexpected answers not among the tracked ones.
	others int
}

// add counts result r if it is unexpected, and reports whether it is the
// first of its distinct answer.
func (t *errorTally) add(r *Result) (first bool) {
	if r.Expected {
		return false
	}
	text := r.Error
	if text == "" {
		text = "unexpected HTTP " + fmt.Sprint(r.Code)
	}
	k := errorKey{r.Op, r.Code, text}
	j, ok := t.at[k]
	if !ok {
		if len(t.entries) >= maxTrackedErrors {
			t.others++
			return false
		}
		if t.at == nil {
			t.at = map[errorKey]int{}
		}
		j = len(t.entries)
		t.at[k] = j
		example := fmt.Sprintf("request %d: %s %s", r.Seq, r.Method, r.URL)
		if r.TrxID != "" && r.Op == OpCreate {
			example = fmt.Sprintf("partner_trx_id %s: %s %s", r.TrxID, r.Method, r.URL)
		}
		t.entries = append(t.entries, ErrorEntry{Op: r.Op, Code: r.Code, Error: text, Example: example, Exhibit: r.Exhibit})
		first = true
	}
	t.entries[j].Count++
	return first
}

// Set returns the error set: the most frequent answers first, at most
// maxErrorEntries, and a last entry for the answers past
// maxTrackedErrors, if any.
func (t *errorTally) Set() []ErrorEntry {
	out := append([]ErrorEntry(nil), t.entries...)
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	if len(out) > maxErrorEntries {
		out = out[:maxErrorEntries]
	}
	if t.others > 0 {
		out = append(out, ErrorEntry{Op: "*", Count: t.others,
			Error: fmt.Sprintf("other unexpected answers, first seen after %d distinct ones were counted", maxTrackedErrors)})
	}
	return out
}
