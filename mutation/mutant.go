package mutation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Operator names a kind of mechanical change. The token operators carry
// gremlins' names (github.com/go-gremlins/gremlins, internal/engine/
// mappings.go), so that a reader who knows that tool knows them; the others
// are the ones it lacks.
type Operator string

// The operators, in the order docs/mutation.md lists them.
const (
	// ConditionalsNegation turns a comparison into its opposite: == and !=,
	// < and >=, > and <=.
	ConditionalsNegation Operator = "conditionals-negation"
	// ConditionalsBoundary shifts a comparison's boundary: < and <=, > and >=.
	ConditionalsBoundary Operator = "conditionals-boundary"
	// InvertLogical swaps && and ||.
	InvertLogical Operator = "invert-logical"
	// InvertCondition negates a condition that is not a comparison (an if,
	// a for, a case of a switch without tag, or an operand of && and ||
	// there): x becomes !x, and !x becomes x.
	InvertCondition Operator = "invert-condition"
	// ArithmeticBase swaps + and -, * and /, and turns % into *.
	ArithmeticBase Operator = "arithmetic-base"
	// InvertAssignments swaps += and -=, *= and /=, ++ and --.
	InvertAssignments Operator = "invert-assignments"
	// BooleanLiteral flips true and false.
	BooleanLiteral Operator = "boolean-literal"
	// ErrorReturnDropped removes a return statement that returns an error
	// (its last result is not nil, in a function whose last result is an
	// error), so that the function goes on as if nothing were wrong.
	ErrorReturnDropped Operator = "error-return-dropped"
	// MessageString drops the last character of a string literal (an empty
	// one becomes "mutant").
	MessageString Operator = "message-string"
	// IntegerConstant adds one to an integer literal, or takes one away.
	IntegerConstant Operator = "integer-constant"
)

// Operators lists every operator in the order of the report.
var Operators = []Operator{
	ConditionalsNegation, ConditionalsBoundary, InvertLogical, InvertCondition,
	ArithmeticBase, InvertAssignments, BooleanLiteral, ErrorReturnDropped,
	MessageString, IntegerConstant,
}

// Key is a mutant's identity, which survives line shifts: the file, the
// enclosing function, the snippet before and after the change and, when
// the same change of the same snippet appears more than once in that
// function, which one (1 for the first).
type Key struct {
	File       string `json:"file" yaml:"file"`
	Func       string `json:"func" yaml:"func"`
	Original   string `json:"original" yaml:"original"`
	Mutated    string `json:"mutated" yaml:"mutated"`
	Occurrence int    `json:"occurrence,omitempty" yaml:"occurrence,omitempty"`
}

// normal is k with the occurrence written as the classification file may
// omit it: 0 and 1 are both the first.
func (k Key) normal() Key {
	if k.Occurrence <= 1 {
		k.Occurrence = 0
	}
	return k
}

// ID is a short name of the key for the command line and the report: the
// first 8 hexadecimal digits of its SHA-256.
func (k Key) ID() string {
	k = k.normal()
	h := sha256.Sum256([]byte(strings.Join([]string{k.File, k.Func, k.Original, k.Mutated, fmt.Sprint(k.Occurrence)}, "\x00")))
	return hex.EncodeToString(h[:4])
}

// Mutant is one mechanical change of one file of the reference.
type Mutant struct {
	Key
	Operator Operator `json:"operator"`
	// Line is where the change is today, for people; it is not part of the
	// identity.
	Line int `json:"line"`
	// Start and End are the byte offsets of the text the change replaces,
	// and Replacement what replaces it.
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Replacement string `json:"replacement"`
}

// Apply returns src with the mutant's change made; src must be the file the
// mutant was enumerated from.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.Replacement))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Replacement...)
	return append(out, src[m.End:]...)
}

// String is the mutant as one line: where, what, and the change.
func (m Mutant) String() string {
	return fmt.Sprintf("%s %s:%d %s %s: %s → %s", m.ID(), m.File, m.Line, m.Func, m.Operator, m.Original, m.Mutated)
}

// Lines returns the whole lines the change touches in src, before and
// after it, for a person to read.
func (m Mutant) Lines(src []byte) (before, after string) {
	from := strings.LastIndexByte(string(src[:m.Start]), '\n') + 1
	to := len(src)
	if i := strings.IndexByte(string(src[m.End:]), '\n'); i >= 0 {
		to = m.End + i
	}
	before = string(src[from:to])
	after = string(src[from:m.Start]) + m.Replacement + string(src[m.End:to])
	return before, after
}
