package record

import (
	"encoding/json"
	"fmt"
	"io"
)

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
