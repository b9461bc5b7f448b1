package steps

// Test data that looks real: destination numbers that fit the operator of
// the product paid for, and phone numbers and email addresses of new
// accounts.

import (
	"fmt"
	"strings"
)

// prefixes are the mobile number prefixes of Indonesia's operators. The
// document requires only "Indonesian format starting with 08, 10 to 13
// digits" (§4.1, §8); a server may also check that a destination number
// belongs to the product's operator, so every payment uses a number of that
// operator.
var prefixes = []struct {
	names    []string // operator names as catalogs show them, lower case
	prefixes []string
}{
	{[]string{"telkomsel", "simpati", "kartu as", "by.u"}, []string{"0811", "0812", "0813", "0821", "0822", "0823", "0851", "0852", "0853"}},
	{[]string{"indosat", "im3", "mentari"}, []string{"0814", "0815", "0816", "0855", "0856", "0857", "0858"}},
	{[]string{"xl"}, []string{"0817", "0818", "0819", "0859", "0877", "0878"}},
	{[]string{"axis"}, []string{"0831", "0832", "0833", "0838"}},
	{[]string{"tri", "three", "3"}, []string{"0895", "0896", "0897", "0898", "0899"}},
	{[]string{"smartfren"}, []string{"0881", "0882", "0883", "0884", "0885", "0886", "0887", "0888", "0889"}},
}

// operatorPrefixes returns the number prefixes of the operator a catalog
// names, or nil when the suite does not know it.
func operatorPrefixes(name string) []string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '(' || r == ')' })
	for _, op := range prefixes {
		for _, n := range op.names {
			full := strings.ToLower(strings.TrimSpace(name)) == n
			for _, w := range words {
				if w == n {
					full = true
				}
			}
			if full {
				return op.prefixes
			}
		}
	}
	return nil
}

// allPrefixes are the prefixes of every operator the suite knows.
func allPrefixes() []string {
	var out []string
	for _, op := range prefixes {
		out = append(out, op.prefixes...)
	}
	return out
}

// destination returns a destination number for a payment of product p: a
// prefix of p's operator (a Telkomsel prefix when the operator is unknown)
// and 8 more digits, 12 digits in all, different for every n.
func destination(p product, runID string, n int64) string {
	ps := operatorPrefixes(p.Operator)
	if ps == nil {
		ps = prefixes[0].prefixes
	}
	return fmt.Sprintf("%s%s%02d", ps[int(n)%len(ps)], runID, n%100)
}

// phoneNumber returns the phone number of the n-th account of a run: a real
// operator prefix, the 6-digit run id and 3 digits of n, 13 digits in all.
func phoneNumber(runID string, n int64) string {
	ps := allPrefixes()
	return fmt.Sprintf("%s%s%03d", ps[int(n/1000)%len(ps)], runID, n%1000)
}

// emailAddress returns the email address of the n-th account of a run.
func emailAddress(runID string, n int64) string {
	return fmt.Sprintf("kasir.%s.%d@tokomitra.co.id", runID, n)
}
