package steps

// Helpers that read decoded JSON: dotted paths, JSON kinds and integers.

import (
	"strings"

	"github.com/partnercommerce/conformance/internal/contract"
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

// integer reads a JSON number (decoded with UseNumber) as an int64
// (internal/contract, shared with the test servers of reference/variants).
var integer = contract.Int64
