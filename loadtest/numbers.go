package loadtest

import "strings"

// operatorPrefixes are the number prefixes of Indonesia's mobile operators,
// by the operator name the catalog gives (section 2.1 operator.name). The
// document fixes the format (section 4.1: starting with 08, 10 to 13
// digits), not the prefixes; these are the operators' public ones, so that
// a destination number belongs to the product's operator, as a partner's
// would.
var operatorPrefixes = []struct {
	name     string
	prefixes []string
}{
	{"telkomsel", []string{"0811", "0812", "0813", "0821", "0822", "0823", "0851", "0852", "0853"}},
	{"indosat", []string{"0814", "0815", "0816", "0855", "0856", "0857", "0858"}},
	{"xl", []string{"0817", "0818", "0819", "0859", "0877", "0878"}},
	{"axis", []string{"0831", "0832", "0833", "0838"}},
	{"tri", []string{"0895", "0896", "0897", "0898", "0899"}},
	{"smartfren", []string{"0881", "0882", "0883", "0884", "0885", "0886", "0887", "0888", "0889"}},
}

// operatorNumber returns a destination number of operator, chosen by h: one
// of the operator's prefixes and 8 digits (12 digits in all, the document's
// format). An operator the table does not know gets a Telkomsel number.
func operatorNumber(operator string, h uint64) string {
	prefixes := operatorPrefixes[0].prefixes
	name := strings.TrimSpace(operator)
	for _, op := range operatorPrefixes {
		// name == op.name, or starts with op.name and a space, in any case
		// (no lower-cased copy: this runs once per payment).
		if len(name) >= len(op.name) && strings.EqualFold(name[:len(op.name)], op.name) &&
			(len(name) == len(op.name) || name[len(op.name)] == ' ') {
			prefixes = op.prefixes
			break
		}
	}
	// The prefix and 8 digits, zero-padded, in one allocation.
	var b [16]byte
	n := append(b[:0], prefixes[int(h%uint64(len(prefixes)))]...)
	digits := (h >> 8) % 100_000_000
	for i := 7; i >= 0; i-- {
		b[len(n)+i] = byte('0' + digits%10)
		digits /= 10
	}
	return string(b[:len(n)+8])
}
