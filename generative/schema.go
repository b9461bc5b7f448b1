package generative

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"
)

// alphabet mixes ASCII with two-, three- and four-byte characters, so that
// length limits are probed in characters, not bytes.
var alphabet = []rune("aZk09-_ .éñßçÅğ日本語𝄞😀")

// defaultMaxLen bounds strings whose schema gives no maxLength.
const defaultMaxLen = 40

// hint draws a value for a field from what the live API told the run
// (product ids from the catalog, method ids, fresh partner transaction ids,
// unique phone numbers), like the links of an OpenAPI-driven fuzzer.
type hint struct {
	// always means the schema's own values are never drawn instead (used
	// where a fresh value is needed, such as a unique partner_trx_id).
	always bool
	draw   func(t *rapid.T, s *openapi3.Schema) any
	// payable, when set, draws only values a payment can succeed with.
	payable func(t *rapid.T, s *openapi3.Schema) any
}

// generator draws JSON values from schemas.
type generator struct {
	hints map[string]hint
	// payable makes every hinted field take its value from the live API
	// (active products only), so that a request with one defect is
	// otherwise one the server could accept: any order of checks then
	// gives the same answer.
	payable bool
}

func schemaType(s *openapi3.Schema) string {
	if s == nil || s.Type == nil || len(*s.Type) == 0 {
		return ""
	}
	return (*s.Type)[0]
}

// value draws a value valid by s for the field name.
func (g *generator) value(t *rapid.T, name string, s *openapi3.Schema) any {
	if s.Nullable && rapid.IntRange(0, 4).Draw(t, name+" null?") == 0 {
		return nil
	}
	if h, ok := g.hints[name]; ok && (h.always || g.payable || rapid.IntRange(0, 4).Draw(t, name+" from the API?") > 0) {
		if g.payable && h.payable != nil {
			return h.payable(t, s)
		}
		return h.draw(t, s)
	}
	if len(s.Enum) > 0 {
		return rapid.SampledFrom(s.Enum).Draw(t, name)
	}
	switch schemaType(s) {
	case openapi3.TypeString:
		return g.stringValue(t, name, s)
	case openapi3.TypeInteger:
		return integerValue(t, name, s)
	case openapi3.TypeNumber:
		return rapid.Int64Range(-1000, 1000).Draw(t, name)
	case openapi3.TypeBoolean:
		return rapid.Bool().Draw(t, name)
	case openapi3.TypeObject:
		return g.object(t, name, s)
	case openapi3.TypeArray:
		return []any{}
	}
	return nil
}

func (g *generator) stringValue(t *rapid.T, name string, s *openapi3.Schema) string {
	if s.Pattern != "" {
		return rapid.StringMatching(s.Pattern).Draw(t, name)
	}
	maxLen := defaultMaxLen
	if s.MaxLength != nil {
		maxLen = int(*s.MaxLength)
	}
	minLen := max(int(s.MinLength), 1)
	switch rapid.IntRange(0, 3).Draw(t, name+" kind") {
	case 0:
		if ex, ok := s.Example.(string); ok {
			return ex
		}
	case 1: // the longest value allowed, in multi-byte characters
		return strings.Repeat(string(rapid.SampledFrom(alphabet[5:]).Draw(t, name+" rune")), maxLen)
	}
	return rapid.StringOfN(rapid.SampledFrom(alphabet), minLen, maxLen, -1).Draw(t, name)
}

func integerValue(t *rapid.T, name string, s *openapi3.Schema) int64 {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if s.Min != nil {
		lo = int64(*s.Min)
	}
	if s.Max != nil {
		hi = int64(*s.Max)
	}
	edges := []int64{0, 1, -1, lo, hi}
	if rapid.Bool().Draw(t, name+" edge?") {
		return rapid.SampledFrom(edges).Draw(t, name)
	}
	return rapid.Int64Range(max(lo, -1000), min(hi, 1000)).Draw(t, name)
}

// object draws an object: required properties present, optional ones
// present or left out.
func (g *generator) object(t *rapid.T, name string, s *openapi3.Schema) map[string]any {
	out := map[string]any{}
	for _, p := range propertyNames(s) {
		ps := s.Properties[p].Value
		if !isRequired(s, p) && !rapid.Bool().Draw(t, p+" present?") {
			continue
		}
		out[p] = g.value(t, p, ps)
	}
	if len(s.Properties) == 0 && rapid.Bool().Draw(t, name+" has a key?") {
		out[rapid.SampledFrom([]string{"kode", "nomor_pelanggan", "catatan"}).Draw(t, name+" key")] =
			rapid.StringOfN(rapid.SampledFrom(alphabet), 0, 12, -1).Draw(t, name+" value")
	}
	return out
}

func propertyNames(s *openapi3.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for p := range s.Properties {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}

func isRequired(s *openapi3.Schema, p string) bool {
	for _, r := range s.Required {
		if r == p {
			return true
		}
	}
	return false
}

// wrongType is a JSON value of another type than s allows.
func wrongType(s *openapi3.Schema) any {
	switch schemaType(s) {
	case openapi3.TypeString:
		return 12345
	case openapi3.TypeInteger, openapi3.TypeNumber:
		return "12"
	case openapi3.TypeBoolean:
		return "true"
	case openapi3.TypeObject:
		return "x"
	case openapi3.TypeArray:
		return map[string]any{}
	}
	return []any{"x"}
}

// class grades a defect: what the document says about a request that has it.
type class int

const (
	// neutral: the document says nothing; only the common checks apply.
	neutral class = iota
	// stated: the document gives a refusal for it (a required field empty,
	// a limit): no 2xx, or the property fails.
	stated
	// read: refusing it rests on a reading of the types of openapi.yaml:
	// a 2xx is a warning.
	read
)

// defect is one departure from the schema, applied to a valid request.
type defect struct {
	Name  string
	Class class
	// body edits the decoded body (nil for query defects); raw replaces
	// the encoded body; query edits the query pairs.
	body  func(map[string]any)
	raw   func([]byte) []byte
	ctype string
	query func([][2]string) [][2]string
}

// bodyDefects lists the one-place departures of a JSON body schema.
func bodyDefects(s *openapi3.Schema) []defect {
	var out []defect
	for _, p := range propertyNames(s) {
		ps := s.Properties[p].Value
		req := isRequired(s, p)
		if req {
			out = append(out, defect{Name: p + " missing", Class: stated, body: func(m map[string]any) { delete(m, p) }})
		}
		if !ps.Nullable {
			// null for a required field is an empty required field (§7);
			// for an optional one the document gives no refusal.
			c := neutral
			if req {
				c = stated
			}
			out = append(out, defect{Name: p + " null", Class: c, body: func(m map[string]any) { m[p] = nil }})
		}
		wt := wrongType(ps)
		out = append(out, defect{Name: p + " of a wrong JSON type", Class: read, body: func(m map[string]any) { m[p] = wt }})
		switch schemaType(ps) {
		case openapi3.TypeString:
			if ps.MaxLength != nil {
				n := int(*ps.MaxLength) + 1
				out = append(out, defect{Name: fmt.Sprintf("%s of %d multi-byte characters", p, n), Class: stated,
					body: func(m map[string]any) { m[p] = overLong(m[p], n) }})
			}
		case openapi3.TypeInteger:
			out = append(out,
				defect{Name: p + " negative", Class: neutral, body: func(m map[string]any) { m[p] = -1 }},
				defect{Name: p + " beyond int64", Class: read, body: func(m map[string]any) { m[p] = json.Number("9223372036854775808") }})
			if ps.Max != nil {
				over := int64(*ps.Max) + 1
				out = append(out, defect{Name: p + " over its maximum", Class: stated, body: func(m map[string]any) { m[p] = over }})
			}
		}
	}
	out = append(out,
		defect{Name: "malformed JSON", Class: read, raw: func(b []byte) []byte { return b[:len(b)/2] }},
		defect{Name: "an empty body", Class: read, raw: func([]byte) []byte { return []byte{} }},
		defect{Name: "a JSON array instead of an object", Class: read, raw: func(b []byte) []byte { return append(append([]byte("["), b...), ']') }},
		defect{Name: "a wrong Content-Type", Class: neutral, ctype: "text/plain"},
	)
	return out
}

// overLong makes a string of n characters that starts like v (so that a
// unique partner_trx_id stays unique) and ends in multi-byte characters.
func overLong(v any, n int) string {
	s, _ := v.(string)
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	for len(r) < n {
		r = append(r, '日')
	}
	return string(r)
}

// queryDefects lists the one-place departures of an operation's query.
func queryDefects(params openapi3.Parameters) []defect {
	var out []defect
	for _, pr := range params {
		p := pr.Value
		if p == nil || p.In != openapi3.ParameterInQuery {
			continue
		}
		name := p.Name
		if p.Required {
			out = append(out, defect{Name: name + " missing", Class: stated, query: func(q [][2]string) [][2]string { return dropParam(q, name) }})
		}
		out = append(out, defect{Name: name + " repeated", Class: neutral, query: func(q [][2]string) [][2]string {
			return append(q, [2]string{name, "ulang"})
		}})
		s := p.Schema.Value
		if schemaType(s) == openapi3.TypeInteger {
			out = append(out,
				defect{Name: name + " not an integer", Class: read, query: func(q [][2]string) [][2]string { return setParam(q, name, "abc") }},
				defect{Name: name + " beyond int64", Class: read, query: func(q [][2]string) [][2]string { return setParam(q, name, "9223372036854775808") }},
				defect{Name: name + " zero", Class: neutral, query: func(q [][2]string) [][2]string { return setParam(q, name, "0") }},
				defect{Name: name + " negative", Class: neutral, query: func(q [][2]string) [][2]string { return setParam(q, name, "-1") }})
			if s.Max != nil {
				over := strconv.FormatInt(int64(*s.Max)+1, 10)
				out = append(out, defect{Name: name + " over its maximum", Class: stated, query: func(q [][2]string) [][2]string { return setParam(q, name, over) }})
			}
		}
	}
	out = append(out, defect{Name: "an unknown query parameter", Class: neutral, query: func(q [][2]string) [][2]string {
		return append(q, [2]string{"tidak_dikenal", "1"})
	}})
	return out
}

func dropParam(q [][2]string, name string) [][2]string {
	var out [][2]string
	for _, p := range q {
		if p[0] != name {
			out = append(out, p)
		}
	}
	return out
}

func setParam(q [][2]string, name, v string) [][2]string {
	out := dropParam(q, name)
	return append(out, [2]string{name, v})
}
