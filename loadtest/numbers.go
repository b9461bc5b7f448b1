package loadtest

import "github.com/partnercommerce/conformance/internal/contract"

// operatorNumber returns a destination number of operator, chosen by h: one
// of the operator's prefixes and 8 digits (12 digits in all, the document's
// format; the prefixes of contract.PrefixesOrDefault).
func operatorNumber(operator string, h uint64) string {
	prefixes := contract.PrefixesOrDefault(operator)
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
