package steps

// Helpers that read decoded JSON: dotted paths, JSON kinds and integers.

import (
	"encoding/json"
	"fmt"
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

// hasKind reports whether v has the JSON type kind.
func hasKind(v any, kind string) bool {
	switch kind {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		_, ok := integer(v)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "object or null":
		if v == nil {
			return true
		}
		_, ok := v.(map[string]any)
		return ok
	case "string or null":
		if v == nil {
			return true
		}
		_, ok := v.(string)
		return ok
	}
	return false
}

// checkFields reports the first documented field that is missing or of the wrong type.
func checkFields(m map[string]any, fields []struct{ path, kind string }) string {
	for _, f := range fields {
		v, ok := lookup(m, f.path)
		if !ok {
			return fmt.Sprintf("%s is missing", f.path)
		}
		if !hasKind(v, f.kind) {
			return fmt.Sprintf("%s is %v, not %s", f.path, v, f.kind)
		}
	}
	return ""
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
