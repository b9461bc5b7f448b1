package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/partnercommerce/conformance/internal/readable"
)

// Rule is the kind of departure from openapi.yaml a Violation is.
type Rule string

// The rules a body can break.
const (
	RuleMissing    Rule = "missing required property"
	RuleType       Rule = "wrong type"
	RuleNotAllowed Rule = "value not allowed"
	RuleUnexpected Rule = "unexpected property"
	RulePattern    Rule = "value out of its pattern"
	RuleBounds     Rule = "value out of bounds"
	// RuleNotJSON is a body that is not one JSON value (§1).
	RuleNotJSON Rule = "not JSON"
)

// Violation is one departure of an answer's body from openapi.yaml: the
// JSON pointer of the offending value (of the missing property, for
// RuleMissing; "" is the whole body), the rule it breaks, what exactly
// (Reason, never empty: what the schema requires and the value found) and
// the section of the document that shows the field. Requires is what the
// schema requires of the value, without the value ("value must be an
// integer"); empty for a missing or unexpected property.
type Violation struct {
	Pointer  string `json:"pointer"`
	Rule     Rule   `json:"rule"`
	Reason   string `json:"reason"`
	Requires string `json:"requires,omitempty"`
	Section  string `json:"section,omitempty"`
}

// Field is the pointer as the document's tables name a field, array
// indices left out: "/data/products/0/operator/logo" is
// "data.products[].operator.logo"; the whole body is "the body".
func (v Violation) Field() string { return fieldOf(v.Pointer) }

// fieldOf is Violation.Field for any JSON pointer.
func fieldOf(pointer string) string {
	if pointer == "" {
		return "the body"
	}
	var b strings.Builder
	for _, seg := range strings.Split(pointer[1:], "/") {
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.NewReplacer("~1", "/", "~0", "~").Replace(seg))
	}
	return b.String()
}

// String is the violation on one line: "at /data/customer/id: wrong type:
// value must be an integer, found "7" (§2.3)".
func (v Violation) String() string {
	at := "at " + v.Pointer
	if v.Pointer == "" {
		at = "the body"
	}
	s := fmt.Sprintf("%s: %s", at, v.Reason)
	if v.Section != "" {
		s += " (§" + v.Section + ")"
	}
	return s
}

// Headline says the violation of an answer of operation op in one
// sentence, field first, for the head of a group of failures:
// "syncProducts answered without `data.products[].operator.logo`
// (required by openapi.yaml, §2.1)".
func (v Violation) Headline(op string) string {
	where := "openapi.yaml"
	if v.Section != "" {
		where += ", §" + v.Section
	}
	field := "`" + v.Field() + "`"
	switch v.Rule {
	case RuleMissing:
		return fmt.Sprintf("%s answered without %s (required by %s)", op, field, where)
	case RuleUnexpected:
		return fmt.Sprintf("%s answered %s, which %s does not allow there", op, field, where)
	case RuleNotJSON:
		return fmt.Sprintf("%s answered a body that is not JSON (§1: every response is JSON)", op)
	}
	return fmt.Sprintf("%s answered %s with a %s: %s (%s)", op, field, v.Rule, nonEmpty(v.Requires, v.Reason), where)
}

// AnswerError is an answer that departs from openapi.yaml: which
// operation, which status, and every violation of its body, in the
// order of the body. Every judge gets it from Validator.Validate.
type AnswerError struct {
	Operation  string
	Status     int
	Violations []Violation
}

// Error lists the violations, those of one field and rule once, with the
// count of the other items that break it the same way.
func (e *AnswerError) Error() string {
	type key struct {
		field string
		rule  Rule
	}
	var order []key
	seen := map[key][]Violation{}
	for _, v := range e.Violations {
		k := key{v.Field(), v.Rule}
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k] = append(seen[k], v)
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		vs := seen[k]
		s := vs[0].String()
		if n := len(vs) - 1; n > 0 {
			s += fmt.Sprintf(" (the same at %s, such as %s)", readable.Plural(n, "more item", "more items"), vs[1].Pointer)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("openapi.yaml %s, response %d: %s", e.Operation, e.Status, strings.Join(parts, "; "))
}

// Brief is the answer's first violation on one line, its headline and the
// pointer of its value, for a judge that counts answers by what broke
// (the load tester): answers that break the same rule at the same field
// read the same.
func (e *AnswerError) Brief() string {
	if len(e.Violations) == 0 {
		return fmt.Sprintf("openapi.yaml %s, response %d", e.Operation, e.Status)
	}
	v := e.Violations[0]
	if v.Pointer == "" {
		return v.Headline(e.Operation)
	}
	return fmt.Sprintf("%s, at %s", v.Headline(e.Operation), v.Pointer)
}

// Marks are the notes a failure writes beside the values of the body
// (readable.Body), by JSON pointer: each violation at its value, a
// missing property at the object that lacks it, the first perField of
// each field only.
func (e *AnswerError) Marks(perField int) map[string]string {
	marks := map[string]string{}
	seen := map[string]int{}
	for _, v := range e.Violations {
		if seen[v.Field()]++; seen[v.Field()] > perField {
			continue
		}
		at := v.Pointer
		if i := strings.LastIndexByte(at, '/'); v.Rule == RuleMissing && i >= 0 {
			at = at[:i]
		}
		if marks[at] != "" {
			marks[at] += "; "
		}
		marks[at] += v.Reason
	}
	return marks
}

// violations turns a validation error of openapi3filter into the
// violations it holds, walking the errors that compose it (MultiError,
// the origins of allOf and oneOf) down to the leaves, each with the
// pointer of its value and a reason. Of a oneOf that no branch matches, it
// keeps the branch the value chose (bestBranch). Leaves without a pointer
// or reason of their own are described from their schema, so that no
// violation is without either.
func violations(err error) []Violation {
	var out []Violation
	switch e := err.(type) { //nolint:errorlint // walks the error's own layers, one at a time

	case nil:
	case openapi3.MultiError:
		for _, x := range e {
			out = append(out, violations(x)...)
		}
	case *openapi3filter.ResponseError:
		if e.Err == nil {
			return []Violation{{Rule: RuleNotAllowed, Reason: nonEmpty(e.Reason, "the answer does not match openapi.yaml")}}
		}
		return violations(e.Err)
	case *openapi3.SchemaError:
		return schemaViolations(e)
	default:
		if inner := errors.Unwrap(err); inner != nil {
			return violations(inner)
		}
		return []Violation{{Rule: RuleNotAllowed, Reason: nonEmpty(err.Error(), "the answer does not match openapi.yaml")}}
	}
	return out
}

// schemaViolations is violations of one schema error.
func schemaViolations(e *openapi3.SchemaError) []Violation {
	switch e.SchemaField {
	case "allOf":
		if branches := originBranches(e.Origin); branches != nil {
			return violations(branches)
		}
	case "oneOf":
		if branches := originBranches(e.Origin); len(branches) > 0 {
			return bestBranch(branches)
		}
	}
	return []Violation{leaf(e)}
}

// originBranches is the error of each branch of an allOf or oneOf error:
// kin-openapi wraps them in its (unexported) multi-errors.
func originBranches(origin error) openapi3.MultiError {
	for e := origin; e != nil; e = errors.Unwrap(e) {
		if me, ok := e.(openapi3.MultiError); ok { //nolint:errorlint // the first layer that is one, not one inside it
			return me
		}
	}
	return nil
}

// bestBranch returns the violations of the oneOf branch the value chose:
// a branch refused for the value of a field it pins (an enum or a not,
// such as the message `OK` of a loaded catalog) is one the value did not
// choose; of the others, the one with the fewest violations. Only the
// chosen branch says what to change.
func bestBranch(branches openapi3.MultiError) []Violation {
	var best []Violation
	bestPinned := -1
	for _, b := range branches {
		vs := violations(b)
		pinned := 0
		for _, v := range vs {
			if v.Rule == RuleNotAllowed {
				pinned++
			}
		}
		if bestPinned < 0 || pinned < bestPinned || pinned == bestPinned && len(vs) < len(best) {
			best, bestPinned = vs, pinned
		}
	}
	return best
}

// leaf describes one schema error that composes no other.
func leaf(e *openapi3.SchemaError) Violation {
	path := e.JSONPointer()
	v := Violation{Rule: RuleNotAllowed, Requires: nonEmpty(e.Reason, "value must match "+nonEmpty(e.SchemaField, "the schema"))}
	switch e.SchemaField {
	case "required":
		v.Rule, v.Requires = RuleMissing, ""
		v.Reason = string(RuleMissing)
		if len(path) > 0 {
			v.Reason = fmt.Sprintf("%s %q", RuleMissing, path[len(path)-1])
		}
	case "properties", "additionalProperties":
		v.Rule, v.Requires = RuleUnexpected, ""
		v.Reason = string(RuleUnexpected)
		if k := unexpectedKey(e); k != "" {
			path = append(path, k)
			v.Reason = fmt.Sprintf("%s %q", RuleUnexpected, k)
		}
	case "type", "nullable":
		v.Rule = RuleType
	case "enum":
		v.Requires = "value must be one of " + enumValues(e.Schema.Enum)
	case "not":
		v.Requires = "value must not match the schema openapi.yaml forbids here"
		if n := e.Schema.Not; n != nil && n.Value != nil && len(n.Value.Enum) > 0 {
			v.Requires = "value must not be " + enumValues(n.Value.Enum)
		}
	case "pattern":
		v.Rule, v.Requires = RulePattern, fmt.Sprintf("value must match the pattern %q", e.Schema.Pattern)
	case "format":
		v.Rule = RulePattern
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
		"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties":
		v.Rule = RuleBounds
	}
	if v.Requires != "" {
		v.Reason = fmt.Sprintf("%s: %s, found %s", v.Rule, v.Requires, foundValue(e.Value))
	}
	v.Pointer = pointer(path)
	return v
}

// unexpectedKey is the first property of the object e is about that its
// schema does not allow.
func unexpectedKey(e *openapi3.SchemaError) string {
	obj, _ := e.Value.(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if _, declared := e.Schema.Properties[k]; !declared {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// pointer writes path as a JSON pointer (RFC 6901).
func pointer(path []string) string {
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for _, seg := range path {
		b.WriteByte('/')
		b.WriteString(esc.Replace(seg))
	}
	return b.String()
}

// foundValue is a value as a failure shows it: its JSON, cut short.
func foundValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const limit = 60
	if len(data) > limit {
		return string(data[:limit]) + "…"
	}
	return string(data)
}

// enumValues lists the values of an enum as JSON.
func enumValues(values []any) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, foundValue(v))
	}
	return strings.Join(parts, ", ")
}

func nonEmpty(s, otherwise string) string {
	if strings.TrimSpace(s) == "" {
		return otherwise
	}
	return s
}
