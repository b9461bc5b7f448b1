package contract

import (
	"regexp"
	"strings"
)

// msisdnFormat is the destination number format of section 4.1: "Indonesian
// format starting with 08, 10 to 13 digits" (also section 8).
var msisdnFormat = regexp.MustCompile(`^08[0-9]{8,11}$`)

// ValidMsisdn reports whether s has the document's destination number
// format (section 4.1).
func ValidMsisdn(s string) bool { return msisdnFormat.MatchString(s) }

// Operator is one of Indonesia's mobile operators: the names a catalog may
// give it (section 2.1 operator.name, lower case) and its public number
// prefixes. The document fixes only the number format, not the prefixes; a
// server may still check that a destination number belongs to the product's
// operator, so every judge sends a number of that operator.
type Operator struct {
	Names    []string
	Prefixes []string
}

// operators is the one table of operator prefixes. Its first operator
// (Telkomsel) numbers an operator the table does not know.
var operators = []Operator{
	{[]string{"telkomsel", "simpati", "kartu as", "by.u"}, []string{"0811", "0812", "0813", "0821", "0822", "0823", "0851", "0852", "0853"}},
	{[]string{"indosat", "im3", "mentari"}, []string{"0814", "0815", "0816", "0855", "0856", "0857", "0858"}},
	{[]string{"xl"}, []string{"0817", "0818", "0819", "0859", "0877", "0878"}},
	{[]string{"axis"}, []string{"0831", "0832", "0833", "0838"}},
	{[]string{"tri", "three", "3"}, []string{"0895", "0896", "0897", "0898", "0899"}},
	{[]string{"smartfren"}, []string{"0881", "0882", "0883", "0884", "0885", "0886", "0887", "0888", "0889"}},
}

// Operators lists the operators of the table; the slices must not be
// changed.
func Operators() []Operator { return operators }

// OperatorPrefixes returns the number prefixes of the operator a catalog
// names, or nil when the table does not know it. The one matching rule: in
// any case, the whole name (trimmed) is one of an operator's names, or one of
// its words (split at spaces, dashes, underscores and parentheses) is; the
// first operator of the table that matches wins. It does not allocate: the
// load tester calls it once per payment.
func OperatorPrefixes(name string) []string {
	name = strings.TrimSpace(name)
	for _, op := range operators {
		for _, n := range op.Names {
			if strings.EqualFold(name, n) || hasWord(name, n) {
				return op.Prefixes
			}
		}
	}
	return nil
}

// hasWord reports whether one word of name is w, in any case.
func hasWord(name, w string) bool {
	start := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && !isWordBreak(name[i]) {
			continue
		}
		if i > start && strings.EqualFold(name[start:i], w) {
			return true
		}
		start = i + 1
	}
	return false
}

func isWordBreak(c byte) bool { return c == ' ' || c == '-' || c == '_' || c == '(' || c == ')' }

// PrefixesOrDefault returns the prefixes of the operator a catalog names,
// or the first operator's when the table does not know it.
func PrefixesOrDefault(name string) []string {
	if ps := OperatorPrefixes(name); ps != nil {
		return ps
	}
	return operators[0].Prefixes
}

// AllPrefixes lists the prefixes of every operator of the table.
func AllPrefixes() []string {
	var out []string
	for _, op := range operators {
		out = append(out, op.Prefixes...)
	}
	return out
}
