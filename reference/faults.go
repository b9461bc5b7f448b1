package reference

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Fault is a deliberate departure from the API document that tests can switch
// on to prove that the conformance suite and the load tester detect it, and
// that a person can switch on to see a failing run (`reference --fault NAME`).
// Faults are off by default and are set through WithFaults only.
//
// Faults are decided once, when the store is built; the rule code never asks
// for one. There are two kinds:
//
//   - A rule fault bends a rule of the domain. Its entry in ruleFaults below
//     changes the store's policy (policy.go), the data the rule code reads:
//     a limit, a format, a switch. The rule code reads the policy field,
//     never the fault.
//   - A wire fault only changes what goes over the wire (a message, a status
//     code, a field's type, a body's content type). The domain knows nothing
//     of it: package httpapi rewrites the responses (httpapi/faults.go),
//     or refuses a request before the domain sees it (a request fault,
//     httpapi's requestFaults).
//
// To add a fault: declare its constant below with a doc comment naming the
// rule it breaks, add it and its one line to faultLines, then either add a
// ruleFaults entry (and, if no policy field expresses it yet, a policy field
// with the document's value in documentPolicy) or add a rewrite to httpapi's
// wireFaults. Finally add a check to httpapi/faults_test.go that shows the
// departure; TestFaultChecksFailWithoutFault proves that the check fails
// without the fault, and TestEveryFaultIsWired that it is wired.
type Fault string

// The faults the reference can inject. Each names the rule it breaks.
const (
	// FaultMessageTypo drops the final period of "Pembayaran berhasil diproses.".
	FaultMessageTypo Fault = "message-typo"
	// FaultProvisionCreatedAs200 answers 200 instead of 201 when a new account is created.
	FaultProvisionCreatedAs200 Fault = "provision-created-as-200"
	// FaultCoinsBeforeBalance spends coins before balance, even when balance suffices.
	FaultCoinsBeforeBalance Fault = "coins-before-balance"
	// FaultCoinValueNotHalved values one coin at one rupiah (payments and profile).
	FaultCoinValueNotHalved Fault = "coin-value-not-halved"
	// FaultDuplicateTrxAccepted creates a second transaction for a reused partner_trx_id.
	FaultDuplicateTrxAccepted Fault = "duplicate-trx-accepted"
	// FaultRacyDuplicateCheck checks partner_trx_id and stores the transaction
	// under two separate locks, so concurrent duplicates can both succeed.
	FaultRacyDuplicateCheck Fault = "racy-duplicate-check"
	// FaultLostUpdateDebit reads the wallet, releases the lock, then writes the
	// debited wallet back, so concurrent debits overwrite each other.
	FaultLostUpdateDebit Fault = "lost-update-debit"
	// FaultSyncOpenToAnyToken lets any account's token call product sync.
	FaultSyncOpenToAnyToken Fault = "sync-open-to-any-token"
	// FaultStatusCrossPartner lets a partner look up another partner's transactions.
	FaultStatusCrossPartner Fault = "status-cross-partner"
	// FaultTokenAcrossPartners accepts a token sent with another partner's secret key.
	FaultTokenAcrossPartners Fault = "token-across-partners"
	// FaultProductWithoutLogo leaves operator.logo out of products (a missing field).
	FaultProductWithoutLogo Fault = "product-without-logo"
	// FaultCustomerIDAsString returns customer.id of the profile as a string (a wrong type).
	FaultCustomerIDAsString Fault = "customer-id-as-string"
	// FaultPaginationOffByOne starts each sync page one page too far.
	FaultPaginationOffByOne Fault = "pagination-off-by-one"
	// FaultInternalMethodWithoutFunds accepts method 0 with neither balance nor coins enabled.
	FaultInternalMethodWithoutFunds Fault = "internal-method-without-funds"
	// FaultNoTrxIDLimit accepts a partner_trx_id over 50 characters.
	FaultNoTrxIDLimit Fault = "no-trx-id-limit"
	// FaultNoShiftCodeLimit accepts a shift_code over 50 characters.
	FaultNoShiftCodeLimit Fault = "no-shift-code-limit"
	// FaultNoPageSizeLimit accepts a pageSize over 100.
	FaultNoPageSizeLimit Fault = "no-page-size-limit"
	// FaultPhoneNotValidated accepts any destination number on the product list.
	FaultPhoneNotValidated Fault = "phone-not-validated"
	// FaultProvisionNewIDOnSync gives an existing phone number a new customer id.
	FaultProvisionNewIDOnSync Fault = "provision-new-id-on-sync"
	// FaultDuplicateEmailAccepted accepts an email already used by another account.
	FaultDuplicateEmailAccepted Fault = "duplicate-email-accepted"
	// FaultProductTokenMessage answers an invalid token on product endpoints
	// with the customer endpoints' wording ("Token tidak valid.").
	FaultProductTokenMessage Fault = "product-token-message"
	// FaultStatusEmptyAs404 answers a status lookup without parameters with 404.
	FaultStatusEmptyAs404 Fault = "status-empty-as-404"
	// FaultBasePriceCharged charges base_price instead of the partner's final_price.
	FaultBasePriceCharged Fault = "base-price-charged"
	// FaultTrxNumberWithoutSlash generates transaction numbers without slashes.
	FaultTrxNumberWithoutSlash Fault = "trx-number-without-slash"
	// FaultCoveredPaymentUnpaid reports a fully covered payment as UNPAID / WAITING_PAYMENT.
	FaultCoveredPaymentUnpaid Fault = "covered-payment-unpaid"
	// FaultInactiveSubCategoryServed serves an inactive sub category as if it were active.
	FaultInactiveSubCategoryServed Fault = "inactive-sub-category-served"
	// FaultGatewayRemainderHidden reports no gateway payment although a remainder is due.
	FaultGatewayRemainderHidden Fault = "gateway-remainder-hidden"
	// FaultPricePlanIgnored serves a partner whose price plan is inactive.
	FaultPricePlanIgnored Fault = "price-plan-ignored"
	// FaultErrorsAsText answers errors with a text/plain body.
	FaultErrorsAsText Fault = "errors-as-text"
	// FaultPageSizeIgnored pages product sync by its default size whatever
	// pageSize asks (§4.2 pageSize: records per page).
	FaultPageSizeIgnored Fault = "page-size-ignored"
	// FaultEmailNotValidated accepts an email address that is not valid (§4.4).
	FaultEmailNotValidated Fault = "email-not-validated"
	// FaultInactiveProductSold sells a product whose status is inactive (§3).
	FaultInactiveProductSold Fault = "inactive-product-sold"
	// FaultInternalMethodMisnamed names method 0 in a payment otherwise than
	// code BALANCE, gateway SALDO, type COIN (§2.4).
	FaultInternalMethodMisnamed Fault = "internal-method-misnamed"
	// FaultAccountsAcrossPartners refuses a phone number or email that an
	// account of another partner uses (§4.4: unique per partner).
	FaultAccountsAcrossPartners Fault = "accounts-across-partners"
	// FaultLengthInBytes counts the 50-character limits in bytes (§8).
	FaultLengthInBytes Fault = "length-in-bytes"
	// FaultListOnlyPrabayar refuses the product list of every sub category
	// but prabayar as if its destination number were invalid (§4.1).
	FaultListOnlyPrabayar Fault = "list-only-prabayar"
	// FaultNullOptionalRefused refuses a payment that sends promotion_id,
	// parts or shift_code as null, which §4.6 allows ("integer or null",
	// "object or null", "string or null"). A request fault: package httpapi
	// refuses the request before the domain sees it.
	FaultNullOptionalRefused Fault = "null-optional-refused"
	// FaultJSONLabelledText labels the JSON list of payment methods
	// Content-Type text/plain (§4: JSON bodies use application/json).
	FaultJSONLabelledText Fault = "json-labelled-text"
	// FaultTotalPagesRoundedDown counts the pages of product sync rounding
	// down, so a last page that is not full is not counted (§2.2 totalPages).
	FaultTotalPagesRoundedDown Fault = "total-pages-rounded-down"
	// FaultCoinsBeyondTotal takes all of a customer's coins when coins are
	// used, though fewer cover the total (§4.6 rule 4: balance and coins
	// cover the total or a part of it, never more).
	FaultCoinsBeyondTotal Fault = "coins-beyond-total"
	// FaultCoinsWithoutUseCoin spends coins after balance although use_coin
	// is false (§4.6 use_coin: "Use coins after balance.").
	FaultCoinsWithoutUseCoin Fault = "coins-without-use-coin"

	// The faults below are found by the load tester (loadtest/): the retry
	// scenario and the history check.

	// FaultRetryDebitsAgain debits a payment whose partner_trx_id is already
	// used again before refusing it with 409, so a partner's retry after a
	// lost answer is debited twice.
	FaultRetryDebitsAgain Fault = "retry-debits-again"
	// FaultStaleProfile serves the profile's balance and coins from a cache
	// refreshed at most every staleProfileFor, so a read can miss the latest
	// payments (a stale read).
	FaultStaleProfile Fault = "stale-profile"
	// FaultThrottledButProcessed answers 429 Too Many Requests (Retry-After:
	// 0) in place of a payment it created: a throttled request is refused,
	// not processed (§8 shows no rate limit; a 429 refuses the request), so
	// the same request sent again meets a used partner_trx_id (409), and the
	// wallet was debited for a payment no answer acknowledged.
	FaultThrottledButProcessed Fault = "throttled-but-processed"

	// The faults below are found by the generated mode (generative/) and by
	// no hand-written scenario (generative/faults_test.go proves both).

	// FaultMultiByteShiftCodePanics copies shift_code into a 150-byte buffer
	// before checking its length, so a shift_code of 51 three-byte
	// characters crashes the server (500) instead of being refused (400).
	FaultMultiByteShiftCodePanics Fault = "multibyte-shift-code-panics"
	// FaultPromotionZeroCrashes dereferences a missing promotion when
	// promotion_id is 0 (500).
	FaultPromotionZeroCrashes Fault = "promotion-zero-crashes"
	// FaultEmptyPartsCrashes reads the first key of parts, so an empty
	// parts object crashes the server (500).
	FaultEmptyPartsCrashes Fault = "empty-parts-crashes"
	// FaultInactiveProductDebitKept debits the wallet for a payment it then
	// refuses because the product is not for sale.
	FaultInactiveProductDebitKept Fault = "inactive-product-debit-kept"
	// FaultZeroPageSizeCrashes accepts pageSize 0 and divides by it (500).
	FaultZeroPageSizeCrashes Fault = "zero-page-size-crashes"
	// FaultStaleWalletTakesCoins takes coins before balance from the third
	// payment after the account's last profile read, although the balance
	// suffices (a wallet cache refreshed only by profile reads).
	FaultStaleWalletTakesCoins Fault = "stale-wallet-takes-coins"
	// FaultDuplicateOverwritesProduct stores the product of a refused
	// duplicate on the first transaction, so its status record shows the
	// refused request's product.
	FaultDuplicateOverwritesProduct Fault = "duplicate-overwrites-product"
	// FaultReprovisionResetsWallet empties the wallet of an account whose
	// phone number is provisioned again.
	FaultReprovisionResetsWallet Fault = "reprovision-resets-wallet"
	// FaultStatusAmountDrifts adds a rupiah to a transaction's total on
	// every status lookup after the second.
	FaultStatusAmountDrifts Fault = "status-amount-drifts"
	// FaultMixedWalletCredited adds the balance and coins a mixed payment
	// (a wallet part and a remainder due through a gateway) reports taking
	// to the wallet instead of taking them: the wallet then holds more than
	// it did before the payment.
	FaultMixedWalletCredited Fault = "mixed-wallet-credited"
	// FaultMixedWalletTakenTwice takes the balance and coins a mixed
	// payment reports taking twice: the wallet then holds less than the
	// payment reports leaving (less than nothing, when it took it all).
	FaultMixedWalletTakenTwice Fault = "mixed-wallet-taken-twice"

	// FaultGatewayPaymentsRefused refuses every payment through a gateway
	// method (payment_method_id other than 0) with 422 "Saldo tidak
	// mencukupi.", and takes nothing. For one payment that is an answer the
	// document allows (§7 Payment: 422 create, "Payment cannot be processed
	// yet"); for every one, it leaves the rules of gateway payments with
	// nothing to judge them on. It breaks no sentence a client can hold it
	// to, so no judge fails it: a run against it must end INCOMPLETE, its
	// rules not judged, never PASS (issue 35 part 5).
	FaultGatewayPaymentsRefused Fault = "gateway-payments-refused"
)

// faultLines is the registry of the faults: each with its one line, in the
// order AllFaults lists them. Fault.Describe and ParseFaults read it, and so
// `reference --fault` and `reference --list-faults`.
var faultLines = []struct {
	fault Fault
	line  string
}{
	{FaultMessageTypo, `drops the final period of "Pembayaran berhasil diproses."`},
	{FaultProvisionCreatedAs200, "answers 200 instead of 201 when provisioning creates an account"},
	{FaultCoinsBeforeBalance, "spends coins before balance, even when the balance suffices"},
	{FaultCoinValueNotHalved, "values one coin at one rupiah instead of half"},
	{FaultDuplicateTrxAccepted, "creates a second transaction for a reused partner_trx_id instead of 409"},
	{FaultRacyDuplicateCheck, "checks partner_trx_id and stores the payment under two locks: concurrent duplicates both succeed"},
	{FaultLostUpdateDebit, "debits the wallet by read, unlock, write back: concurrent debits overwrite each other"},
	{FaultSyncOpenToAnyToken, "lets any account's token call product sync (not only the main account's)"},
	{FaultStatusCrossPartner, "lets a partner look up another partner's transactions"},
	{FaultTokenAcrossPartners, "accepts a token sent with another partner's secret key"},
	{FaultProductWithoutLogo, "leaves operator.logo out of every product"},
	{FaultCustomerIDAsString, "returns the profile's customer.id as a string"},
	{FaultPaginationOffByOne, "starts each product sync page one page too far"},
	{FaultInternalMethodWithoutFunds, "accepts payment method 0 with neither balance nor coins chosen"},
	{FaultNoTrxIDLimit, "accepts a partner_trx_id over 50 characters"},
	{FaultNoShiftCodeLimit, "accepts a shift_code over 50 characters"},
	{FaultNoPageSizeLimit, "accepts a pageSize over 100"},
	{FaultPhoneNotValidated, "accepts any destination number on the product list"},
	{FaultProvisionNewIDOnSync, "gives an already provisioned phone number a new customer id"},
	{FaultDuplicateEmailAccepted, "accepts an email already used by another account of the partner"},
	{FaultProductTokenMessage, `answers an invalid token on product endpoints with "Token tidak valid."`},
	{FaultStatusEmptyAs404, "answers a payment status lookup without parameters with 404 instead of 400"},
	{FaultBasePriceCharged, "charges base_price instead of the partner's final_price"},
	{FaultTrxNumberWithoutSlash, "makes transaction numbers without slashes"},
	{FaultCoveredPaymentUnpaid, "reports a payment fully covered by balance and coins as UNPAID / WAITING_PAYMENT"},
	{FaultInactiveSubCategoryServed, "serves an inactive sub category as if it were active"},
	{FaultGatewayRemainderHidden, "reports no gateway payment although a remainder is due"},
	{FaultPricePlanIgnored, "serves a partner whose price plan is inactive"},
	{FaultErrorsAsText, "answers every error with a text/plain body"},
	{FaultPageSizeIgnored, "pages product sync by its default size whatever pageSize asks"},
	{FaultEmailNotValidated, "accepts an email address that is not valid"},
	{FaultInactiveProductSold, "sells a product whose status is inactive"},
	{FaultInternalMethodMisnamed, "names payment method 0 otherwise than code BALANCE, gateway SALDO, type COIN"},
	{FaultAccountsAcrossPartners, "refuses a phone number or email that an account of another partner uses"},
	{FaultLengthInBytes, "counts the 50-character limits in bytes"},
	{FaultListOnlyPrabayar, "refuses the product list of every sub category but prabayar"},
	{FaultNullOptionalRefused, "refuses a payment that sends promotion_id, parts or shift_code as null"},
	{FaultJSONLabelledText, "labels the JSON list of payment methods Content-Type text/plain"},
	{FaultTotalPagesRoundedDown, "counts the pages of product sync rounding down"},
	{FaultCoinsBeyondTotal, "takes all of a customer's coins when coins are used, though fewer cover the total"},
	{FaultCoinsWithoutUseCoin, "spends coins after balance although use_coin is false"},
	{FaultMultiByteShiftCodePanics, "crashes (500) on a shift_code of 51 three-byte characters"},
	{FaultPromotionZeroCrashes, "crashes (500) on promotion_id 0"},
	{FaultEmptyPartsCrashes, "crashes (500) on an empty parts object"},
	{FaultInactiveProductDebitKept, "debits the wallet for a payment it then refuses because the product is not for sale"},
	{FaultZeroPageSizeCrashes, "accepts pageSize 0 and crashes (500) dividing by it"},
	{FaultStaleWalletTakesCoins, "takes coins before balance from the third payment after the account's last profile read"},
	{FaultDuplicateOverwritesProduct, "stores the product of a refused duplicate payment on the first transaction"},
	{FaultReprovisionResetsWallet, "empties the wallet of an account whose phone number is provisioned again"},
	{FaultStatusAmountDrifts, "adds a rupiah to a transaction's total on every status lookup after the second"},
	{FaultRetryDebitsAgain, "debits a payment whose partner_trx_id is used again before refusing it with 409"},
	{FaultStaleProfile, "serves the profile's balance and coins from a cache up to 1 s old"},
	{FaultThrottledButProcessed, "answers 429 (Retry-After: 0) in place of a payment it created: a throttled request that was processed"},
	{FaultMixedWalletCredited, "adds to the wallet the balance and coins a payment with a gateway remainder reports taking, instead of taking them"},
	{FaultMixedWalletTakenTwice, "takes twice the balance and coins a payment with a gateway remainder reports taking"},
	{FaultGatewayPaymentsRefused, `refuses every payment through a gateway method with 422 "Saldo tidak mencukupi." (legal once; for every one, the run is INCOMPLETE)`},
}

// AllFaults lists every fault, in the order of faultLines.
func AllFaults() []Fault {
	out := make([]Fault, len(faultLines))
	for i, l := range faultLines {
		out[i] = l.fault
	}
	return out
}

// Describe is the fault's one line: the departure from the API document it
// makes, as `reference --list-faults` prints it; "" for an unknown fault.
func (f Fault) Describe() string {
	for _, l := range faultLines {
		if l.fault == f {
			return l.line
		}
	}
	return ""
}

// errUnknownFault marks a fault name that is not one of AllFaults.
var errUnknownFault = errors.New("unknown fault")

// ParseFaults reads a comma-separated list of fault names ("" is none). A
// name that is not a fault is an error wrapping errUnknownFault that lists
// the names there are.
func ParseFaults(list string) ([]Fault, error) {
	var out []Fault
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		f := Fault(name)
		if f.Describe() == "" {
			names := make([]string, 0, len(faultLines))
			for _, l := range faultLines {
				names = append(names, string(l.fault))
			}
			slices.Sort(names)
			return nil, fmt.Errorf("%w %q; the faults are: %s", errUnknownFault, name, strings.Join(names, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// ruleFaults bends the document's policy for each rule fault.
var ruleFaults = map[Fault]func(*policy){
	FaultCoinsBeforeBalance:         func(p *policy) { p.split.coinsFirst = true },
	FaultCoinValueNotHalved:         func(p *policy) { p.split.coinsPerRupiah = 1 },
	FaultDuplicateTrxAccepted:       func(p *policy) { p.uniqueTrxID = false },
	FaultRacyDuplicateCheck:         func(p *policy) { p.checkAndInsertAtomically = false },
	FaultLostUpdateDebit:            func(p *policy) { p.debitAtomically = false },
	FaultSyncOpenToAnyToken:         func(p *policy) { p.mainOnlySync = false },
	FaultStatusCrossPartner:         func(p *policy) { p.ownTransactionsOnly = false },
	FaultTokenAcrossPartners:        func(p *policy) { p.tokenBoundToPartner = false },
	FaultPaginationOffByOne:         func(p *policy) { p.firstPage = 0 },
	FaultInternalMethodWithoutFunds: func(p *policy) { p.internalNeedsFunds = false },
	FaultNoTrxIDLimit:               func(p *policy) { p.maxTrxIDLen = unlimited },
	FaultNoShiftCodeLimit:           func(p *policy) { p.maxShiftCodeLen = unlimited },
	FaultNoPageSizeLimit:            func(p *policy) { p.maxPageSize = unlimited },
	FaultPhoneNotValidated:          func(p *policy) { p.listPhoneValid = func(string) bool { return true } },
	FaultProvisionNewIDOnSync:       func(p *policy) { p.keepIDOnSync = false },
	FaultDuplicateEmailAccepted:     func(p *policy) { p.uniqueEmail = false },
	FaultStatusEmptyAs404:           func(p *policy) { p.errStatusEmpty = ErrTrxNotFound },
	FaultBasePriceCharged:           func(p *policy) { p.chargeBasePrice = true },
	FaultTrxNumberWithoutSlash:      func(p *policy) { p.trxNumberSep = "" },
	FaultCoveredPaymentUnpaid: func(p *policy) {
		p.coveredPayment, p.coveredTransaction = PaymentUnpaid, TransactionWaitingPayment
	},
	FaultInactiveSubCategoryServed: func(p *policy) { p.hideInactiveSubCategories = false },
	FaultGatewayRemainderHidden:    func(p *policy) { p.reportRemainder = false },
	FaultPricePlanIgnored:          func(p *policy) { p.enforcePricePlan = false },
	FaultPageSizeIgnored:           func(p *policy) { p.honourPageSize = false },
	FaultEmailNotValidated:         func(p *policy) { p.validEmail = func(string) bool { return true } },
	FaultInactiveProductSold:       func(p *policy) { p.sellInactive = true },
	FaultAccountsAcrossPartners:    func(p *policy) { p.accountsPerPartner = false },
	FaultLengthInBytes:             func(p *policy) { p.length = func(s string) int { return len(s) } },
	FaultListOnlyPrabayar:          func(p *policy) { p.listOnly = "prabayar" },
	FaultTotalPagesRoundedDown:     func(p *policy) { p.pagesRoundDown = true },
	FaultCoinsBeyondTotal:          func(p *policy) { p.split.allCoins = true },
	FaultCoinsWithoutUseCoin:       func(p *policy) { p.split.ignoreUseCoin = true },

	FaultMultiByteShiftCodePanics:   func(p *policy) { p.shiftCodeBufferBytes = 150 },
	FaultPromotionZeroCrashes:       func(p *policy) { p.promotionZeroPanics = true },
	FaultEmptyPartsCrashes:          func(p *policy) { p.emptyPartsPanics = true },
	FaultInactiveProductDebitKept:   func(p *policy) { p.debitRefusedProduct = true },
	FaultZeroPageSizeCrashes:        func(p *policy) { p.minPageSize = 0 },
	FaultStaleWalletTakesCoins:      func(p *policy) { p.staleWalletAfter = 3 },
	FaultDuplicateOverwritesProduct: func(p *policy) { p.duplicateRewritesProduct = true },
	FaultReprovisionResetsWallet:    func(p *policy) { p.walletResetOnSync = true },
	FaultStatusAmountDrifts:         func(p *policy) { p.amountDriftAfterLookups = 2 },
	FaultRetryDebitsAgain:           func(p *policy) { p.debitUsedID = true },
	FaultStaleProfile:               func(p *policy) { p.profileCacheFor = staleProfileFor },
	FaultMixedWalletCredited:        func(p *policy) { p.mixedCredited = true },
	FaultMixedWalletTakenTwice:      func(p *policy) { p.mixedTakenTwice = true },
	FaultGatewayPaymentsRefused:     func(p *policy) { p.refuseGateway = true },
}

// staleProfileFor is how long FaultStaleProfile serves a cached wallet.
const staleProfileFor = time.Second

// staleWallet is a wallet as FaultStaleProfile cached it.
type staleWallet struct {
	at             time.Time
	balance, coins int64
}

// IsRuleFault reports whether f bends a domain rule; the other faults are
// wire faults, served by package httpapi.
func IsRuleFault(f Fault) bool {
	_, ok := ruleFaults[f]
	return ok
}

// WithFaults switches on deliberate departures from the API document: tests,
// and `reference --fault` for a person rehearsing a failing run.
func WithFaults(faults ...Fault) Option {
	return func(s *Store) { s.faults = append(s.faults, faults...) }
}

// Faults returns the faults the store was built with, for the HTTP layer to
// install the wire faults.
func (s *Store) Faults() []Fault { return slices.Clone(s.faults) }

// policyWith returns the document's policy bent by the rule faults.
func policyWith(faults []Fault) policy {
	p := documentPolicy()
	for _, f := range faults {
		if bend := ruleFaults[f]; bend != nil {
			bend(&p)
		}
	}
	return p
}
