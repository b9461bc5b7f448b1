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
	// Example is the first request that got it: its method and URL and
	// its sequence number in the run.
	Example string `json:"example"`
}

// maxErrorEntries bounds the error set.
const maxErrorEntries = 20

// errorSet gathers the distinct unexpected answers of results, most
// frequent first (at most maxErrorEntries).
func errorSet(results []Result) []ErrorEntry {
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
			out = append(out, ErrorEntry{Op: r.Op, Code: r.Code, Error: text,
				Example: fmt.Sprintf("request %d: %s %s", r.Seq, r.Method, r.URL)})
		}
		out[j].Count++
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Count > out[b].Count })
	if len(out) > maxErrorEntries {
		out = out[:maxErrorEntries]
	}
	return out
}
