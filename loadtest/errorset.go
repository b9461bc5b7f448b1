package loadtest

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
}

// maxErrorEntries bounds the error set.
const maxErrorEntries = 20

// errorSet gathers the distinct unexpected answers of results, most
// frequent first (at most maxErrorEntries). ledger names the payments.
func errorSet(results []Result, ledger []Payment) []ErrorEntry {
	ids := map[int64]string{} // send time → partner_trx_id
	for i := range ledger {
		if !ledger[i].At.IsZero() {
			ids[ledger[i].At.UnixNano()] = ledger[i].ID
		}
	}
	type key struct {
		op   string
		code uint16
		err  string
	}
	at := map[key]int{}
	var out []ErrorEntry
	for i := range results {
		r := &results[i]
		if r.Expected {
			continue
		}
		text := r.Error
		if text == "" {
			text = "unexpected HTTP " + fmt.Sprint(r.Code)
		}
		k := key{r.Op, r.Code, text}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			example := fmt.Sprintf("request %d: %s %s", r.Seq, r.Method, r.URL)
			if id, ok := ids[r.Timestamp.UnixNano()]; ok && r.Op == OpCreate {
				example = fmt.Sprintf("partner_trx_id %s: %s %s", id, r.Method, r.URL)
			}
			out = append(out, ErrorEntry{Op: r.Op, Code: r.Code, Error: text, Example: example})
		}
		out[j].Count++
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	if len(out) > maxErrorEntries {
		out = out[:maxErrorEntries]
	}
	return out
}
