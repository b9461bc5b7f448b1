package steps

// Helpers that read decoded JSON: dotted paths, JSON kinds and integers.

import (
	"encoding/json"
	"strings"
)

// lookup follows a dotted path in decoded JSON.
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// integer reads a JSON number (decoded with UseNumber) as an int64.
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}
