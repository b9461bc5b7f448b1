package record

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// writeJSONLines writes items as JSON lines, as the ledger and the history
// files hold them.
func writeJSONLines[T any](w io.Writer, items []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// readJSONLines reads every line eachJSONLine reads.
func readJSONLines[T any](r io.Reader, what string) ([]T, error) {
	var out []T
	if err := eachJSONLine(r, what, func(e *T) error { out = append(out, *e); return nil }); err != nil {
		return nil, err
	}
	return out, nil
}

// eachJSONLine calls fn with each value of the JSON lines read from r, one
// at a time; a line it cannot decode is named what and its number.
func eachJSONLine[T any](r io.Reader, what string, fn func(*T) error) error {
	dec := json.NewDecoder(r)
	for n := 1; ; n++ {
		var e T
		err := dec.Decode(&e)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s %d: %w", what, n, err)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
}
