package steps

// Test data that looks real: destination numbers that fit the operator of
// the product paid for, and phone numbers and email addresses of new
// accounts.

import (
	"fmt"

	"github.com/partnercommerce/conformance/internal/contract"
)

// destination returns a destination number for a payment of product p: a
// prefix of p's operator (contract.PrefixesOrDefault) and 8 more digits, 12
// digits in all, different for every n.
func destination(p product, runID string, n int64) string {
	ps := contract.PrefixesOrDefault(p.Operator)
	return fmt.Sprintf("%s%s%02d", ps[int(n)%len(ps)], runID, n%100)
}

// phoneNumber returns the phone number of the n-th account of a run: a real
// operator prefix, the 6-digit run id and 3 digits of n, 13 digits in all.
func phoneNumber(runID string, n int64) string {
	ps := contract.AllPrefixes()
	return fmt.Sprintf("%s%s%03d", ps[int(n/1000)%len(ps)], runID, n%1000)
}

// emailAddress returns the email address of the n-th account of a run.
func emailAddress(runID string, n int64) string {
	return fmt.Sprintf("kasir.%s.%d@tokomitra.co.id", runID, n)
}
