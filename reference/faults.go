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
// for one. A fault is served by one layer (Layer):
//
//   - A rule fault bends a rule of the domain: its declaration changes the
//     store's policy (policy.go), the data the rule code reads: a limit, a
//     format, a switch. The rule code reads the policy field, never the
//     fault.
//   - A wire fault only changes what goes over the wire (a message, a status
//     code, a field's type, a body's content type). The domain knows nothing
//     of it: package httpapi rewrites the answers (httpapi/faults.go).
//   - A request fault refuses a request the document allows before the
//     domain sees it (httpapi/faults.go too).
//
// To add a fault: declare it below, one entry with a doc comment naming
// the rule it breaks: rule (with the policy it bends; if no policy field
// expresses it yet, add one with the document's value in documentPolicy),
// wire or request (with its change in httpapi's wireFaults), and
// shapeAt when it changes the shape of an answer. Then add a check to
// httpapi/faults_test.go that shows the departure;
// TestFaultChecksFailWithoutFault proves that the check fails without the
// fault, and TestEveryFaultIsWired that it is served by its layer.
type Fault string

// Layer is where a fault is served.
type Layer int

// The layers of the faults.
const (
	LayerRule    Layer = iota + 1 // the domain's policy
	LayerWire                     // httpapi rewrites the answer
	LayerRequest                  // httpapi refuses the request
)

// FaultSpec declares a fault: its name, its one line, its layer and what it
// changes.
type FaultSpec struct {
	Fault Fault
	// Line is the departure from the API document it makes, in one line,
	// as `reference --list-faults` prints it.
	Line  string
	Layer Layer
	// Shape is the JSON pointer of the value whose shape (a field missing,
	// of another type or out of its pattern) it changes in the first answer
	// it changes, "" for a body that is not JSON; nil when it changes no
	// shape. The judges' tests run these faults (httpapitest.ShapeFaults).
	Shape *string
	// bend changes the document's policy for a rule fault.
	bend func(*policy)
}

// rule declares a fault that bends the domain's policy.
func rule(f Fault, line string, bend func(*policy)) FaultSpec {
	return FaultSpec{Fault: f, Line: line, Layer: LayerRule, bend: bend}
}

// wire declares a fault httpapi serves by rewriting an answer.
func wire(f Fault, line string) FaultSpec { return FaultSpec{Fault: f, Line: line, Layer: LayerWire} }

// request declares a fault httpapi serves by refusing a request.
func request(f Fault, line string) FaultSpec {
	return FaultSpec{Fault: f, Line: line, Layer: LayerRequest}
}

// shapeAt says the fault changes the shape of the value at pointer.
func (s FaultSpec) shapeAt(pointer string) FaultSpec {
	s.Shape = &pointer
	return s
}

// FaultTable is a list of fault declarations, in the order the faults are
// listed.
type FaultTable []FaultSpec

// faultTable is every fault the reference declares, in declaration order:
// AllFaults, Describe, ParseFaults, IsRuleFault, the store's policy,
// httpapi's wire faults and the judges' ShapeFaults read it.
var faultTable FaultTable

// declare adds the fault s declares to faultTable and returns its name.
func declare(s FaultSpec) Fault {
	faultTable = append(faultTable, s)
	return s.Fault
}

// Faults returns the declarations of every fault, in order.
func Faults() FaultTable { return slices.Clone(faultTable) }

// The faults the reference can inject, each declared once: its name, its
// one line (`reference --list-faults`), its layer and what it changes (the
// policy a rule fault bends, the answer's shape a fault changes). Each names
// the rule it breaks.
var (
	// FaultMessageTypo drops the final period of "Pembayaran berhasil diproses.".
	FaultMessageTypo = declare(wire("message-typo", `drops the final period of "Pembayaran berhasil diproses."`))
	// FaultProvisionCreatedAs200 answers 200 instead of 201 when a new account is created.
	FaultProvisionCreatedAs200 = declare(wire("provision-created-as-200", "answers 200 instead of 201 when provisioning creates an account"))
	// FaultCoinsBeforeBalance spends coins before balance, even when balance suffices.
	FaultCoinsBeforeBalance = declare(rule("coins-before-balance", "spends coins before balance, even when the balance suffices",
		func(p *policy) { p.split.coinsFirst = true }))
	// FaultCoinValueNotHalved values one coin at one rupiah (payments and profile).
	FaultCoinValueNotHalved = declare(rule("coin-value-not-halved", "values one coin at one rupiah instead of half",
		func(p *policy) { p.split.coinsPerRupiah = 1 }))
	// FaultDuplicateTrxAccepted creates a second transaction for a reused partner_trx_id.
	FaultDuplicateTrxAccepted = declare(rule("duplicate-trx-accepted", "creates a second transaction for a reused partner_trx_id instead of 409",
		func(p *policy) { p.uniqueTrxID = false }))
	// FaultRacyDuplicateCheck checks partner_trx_id and stores the transaction
	// under two separate locks, so concurrent duplicates can both succeed.
	FaultRacyDuplicateCheck = declare(rule("racy-duplicate-check", "checks partner_trx_id and stores the payment under two locks: concurrent duplicates both succeed",
		func(p *policy) { p.checkAndInsertAtomically = false }))
	// FaultLostUpdateDebit reads the wallet, releases the lock, then writes the
	// debited wallet back, so concurrent debits overwrite each other.
	FaultLostUpdateDebit = declare(rule("lost-update-debit", "debits the wallet by read, unlock, write back: concurrent debits overwrite each other",
		func(p *policy) { p.debitAtomically = false }))
	// FaultSyncOpenToAnyToken lets any account's token call product sync.
	FaultSyncOpenToAnyToken = declare(rule("sync-open-to-any-token", "lets any account's token call product sync (not only the main account's)",
		func(p *policy) { p.mainOnlySync = false }))
	// FaultStatusCrossPartner lets a partner look up another partner's transactions.
	FaultStatusCrossPartner = declare(rule("status-cross-partner", "lets a partner look up another partner's transactions",
		func(p *policy) { p.ownTransactionsOnly = false }))
	// FaultTokenAcrossPartners accepts a token sent with another partner's secret key.
	FaultTokenAcrossPartners = declare(rule("token-across-partners", "accepts a token sent with another partner's secret key",
		func(p *policy) { p.tokenBoundToPartner = false }))
	// FaultProductWithoutLogo leaves operator.logo out of products (a missing field).
	FaultProductWithoutLogo = declare(wire("product-without-logo", "leaves operator.logo out of every product").shapeAt("/data/products/0/operator/logo"))
	// FaultCustomerIDAsString returns customer.id of the profile as a string (a wrong type).
	FaultCustomerIDAsString = declare(wire("customer-id-as-string", "returns the profile's customer.id as a string").shapeAt("/data/customer/id"))
	// FaultPaginationOffByOne starts each sync page one page too far.
	FaultPaginationOffByOne = declare(rule("pagination-off-by-one", "starts each product sync page one page too far",
		func(p *policy) { p.firstPage = 0 }))
	// FaultInternalMethodWithoutFunds accepts method 0 with neither balance nor coins enabled.
	FaultInternalMethodWithoutFunds = declare(rule("internal-method-without-funds", "accepts payment method 0 with neither balance nor coins chosen",
		func(p *policy) { p.internalNeedsFunds = false }))
	// FaultNoTrxIDLimit accepts a partner_trx_id over 50 characters.
	FaultNoTrxIDLimit = declare(rule("no-trx-id-limit", "accepts a partner_trx_id over 50 characters",
		func(p *policy) { p.maxTrxIDLen = unlimited }))
	// FaultNoShiftCodeLimit accepts a shift_code over 50 characters.
	FaultNoShiftCodeLimit = declare(rule("no-shift-code-limit", "accepts a shift_code over 50 characters",
		func(p *policy) { p.maxShiftCodeLen = unlimited }))
	// FaultNoPageSizeLimit accepts a pageSize over 100.
	FaultNoPageSizeLimit = declare(rule("no-page-size-limit", "accepts a pageSize over 100",
		func(p *policy) { p.maxPageSize = unlimited }))
	// FaultPhoneNotValidated accepts any destination number on the product list.
	FaultPhoneNotValidated = declare(rule("phone-not-validated", "accepts any destination number on the product list",
		func(p *policy) { p.listPhoneValid = func(string) bool { return true } }))
	// FaultProvisionNewIDOnSync gives an existing phone number a new customer id.
	FaultProvisionNewIDOnSync = declare(rule("provision-new-id-on-sync", "gives an already provisioned phone number a new customer id",
		func(p *policy) { p.keepIDOnSync = false }))
	// FaultDuplicateEmailAccepted accepts an email already used by another account.
	FaultDuplicateEmailAccepted = declare(rule("duplicate-email-accepted", "accepts an email already used by another account of the partner",
		func(p *policy) { p.uniqueEmail = false }))
	// FaultProductTokenMessage answers an invalid token on product endpoints
	// with the customer endpoints' wording ("Token tidak valid.").
	FaultProductTokenMessage = declare(wire("product-token-message", `answers an invalid token on product endpoints with "Token tidak valid."`))
	// FaultStatusEmptyAs404 answers a status lookup without parameters with 404.
	FaultStatusEmptyAs404 = declare(rule("status-empty-as-404", "answers a payment status lookup without parameters with 404 instead of 400",
		func(p *policy) { p.errStatusEmpty = ErrTrxNotFound }))
	// FaultBasePriceCharged charges base_price instead of the partner's final_price.
	FaultBasePriceCharged = declare(rule("base-price-charged", "charges base_price instead of the partner's final_price",
		func(p *policy) { p.chargeBasePrice = true }))
	// FaultTrxNumberWithoutSlash generates transaction numbers without slashes.
	FaultTrxNumberWithoutSlash = declare(rule("trx-number-without-slash", "makes transaction numbers without slashes",
		func(p *policy) { p.trxNumberSep = "" }).shapeAt("/data/transaction/transaction_number"))
	// FaultCoveredPaymentUnpaid reports a fully covered payment as UNPAID / WAITING_PAYMENT.
	FaultCoveredPaymentUnpaid = declare(rule("covered-payment-unpaid", "reports a payment fully covered by balance and coins as UNPAID / WAITING_PAYMENT",
		func(p *policy) { p.coveredPayment, p.coveredTransaction = PaymentUnpaid, TransactionWaitingPayment }))
	// FaultInactiveSubCategoryServed serves an inactive sub category as if it were active.
	FaultInactiveSubCategoryServed = declare(rule("inactive-sub-category-served", "serves an inactive sub category as if it were active",
		func(p *policy) { p.hideInactiveSubCategories = false }))
	// FaultGatewayRemainderHidden reports no gateway payment although a remainder is due.
	FaultGatewayRemainderHidden = declare(rule("gateway-remainder-hidden", "reports no gateway payment although a remainder is due",
		func(p *policy) { p.reportRemainder = false }))
	// FaultPricePlanIgnored serves a partner whose price plan is inactive.
	FaultPricePlanIgnored = declare(rule("price-plan-ignored", "serves a partner whose price plan is inactive",
		func(p *policy) { p.enforcePricePlan = false }))
	// FaultErrorsAsText answers errors with a text/plain body.
	FaultErrorsAsText = declare(wire("errors-as-text", "answers every error with a text/plain body").shapeAt(""))
	// FaultPageSizeIgnored pages product sync by its default size whatever
	// pageSize asks (§4.2 pageSize: records per page).
	FaultPageSizeIgnored = declare(rule("page-size-ignored", "pages product sync by its default size whatever pageSize asks",
		func(p *policy) { p.honourPageSize = false }))
	// FaultEmailNotValidated accepts an email address that is not valid (§4.4).
	FaultEmailNotValidated = declare(rule("email-not-validated", "accepts an email address that is not valid",
		func(p *policy) { p.validEmail = func(string) bool { return true } }))
	// FaultInactiveProductSold sells a product whose status is inactive (§3).
	FaultInactiveProductSold = declare(rule("inactive-product-sold", "sells a product whose status is inactive",
		func(p *policy) { p.sellInactive = true }))
	// FaultInternalMethodMisnamed names method 0 in a payment otherwise than
	// code BALANCE, gateway SALDO, type COIN (§2.4).
	FaultInternalMethodMisnamed = declare(wire("internal-method-misnamed", "names payment method 0 otherwise than code BALANCE, gateway SALDO, type COIN"))
	// FaultAccountsAcrossPartners refuses a phone number or email that an
	// account of another partner uses (§4.4: unique per partner).
	FaultAccountsAcrossPartners = declare(rule("accounts-across-partners", "refuses a phone number or email that an account of another partner uses",
		func(p *policy) { p.accountsPerPartner = false }))
	// FaultLengthInBytes counts the 50-character limits in bytes (§8).
	FaultLengthInBytes = declare(rule("length-in-bytes", "counts the 50-character limits in bytes",
		func(p *policy) { p.length = func(s string) int { return len(s) } }))
	// FaultListOnlyPrabayar refuses the product list of every sub category
	// but prabayar as if its destination number were invalid (§4.1).
	FaultListOnlyPrabayar = declare(rule("list-only-prabayar", "refuses the product list of every sub category but prabayar",
		func(p *policy) { p.listOnly = "prabayar" }))
	// FaultNullOptionalRefused refuses a payment that sends promotion_id,
	// parts or shift_code as null, which §4.6 allows ("integer or null",
	// "object or null", "string or null"). A request fault: package httpapi
	// refuses the request before the domain sees it.
	FaultNullOptionalRefused = declare(request("null-optional-refused", "refuses a payment that sends promotion_id, parts or shift_code as null"))
	// FaultJSONLabelledText labels the JSON list of payment methods
	// Content-Type text/plain (§4: JSON bodies use application/json).
	FaultJSONLabelledText = declare(wire("json-labelled-text", "labels the JSON list of payment methods Content-Type text/plain"))
	// FaultTotalPagesRoundedDown counts the pages of product sync rounding
	// down, so a last page that is not full is not counted (§2.2 totalPages).
	FaultTotalPagesRoundedDown = declare(rule("total-pages-rounded-down", "counts the pages of product sync rounding down",
		func(p *policy) { p.pagesRoundDown = true }))
	// FaultCoinsBeyondTotal takes all of a customer's coins when coins are
	// used, though fewer cover the total (§4.6 rule 4: balance and coins
	// cover the total or a part of it, never more).
	FaultCoinsBeyondTotal = declare(rule("coins-beyond-total", "takes all of a customer's coins when coins are used, though fewer cover the total",
		func(p *policy) { p.split.allCoins = true }))
	// FaultCoinsWithoutUseCoin spends coins after balance although use_coin
	// is false (§4.6 use_coin: "Use coins after balance.").
	FaultCoinsWithoutUseCoin = declare(rule("coins-without-use-coin", "spends coins after balance although use_coin is false",
		func(p *policy) { p.split.ignoreUseCoin = true }))

	// The faults below are found by the generated mode (generative/) and by
	// no hand-written scenario (generative/faults_test.go proves both).
	// FaultMultiByteShiftCodePanics copies shift_code into a 150-byte buffer
	// before checking its length, so a shift_code of 51 three-byte
	// characters crashes the server (500) instead of being refused (400).
	FaultMultiByteShiftCodePanics = declare(rule("multibyte-shift-code-panics", "crashes (500) on a shift_code of 51 three-byte characters",
		func(p *policy) { p.shiftCodeBufferBytes = 150 }))
	// FaultPromotionZeroCrashes dereferences a missing promotion when
	// promotion_id is 0 (500).
	FaultPromotionZeroCrashes = declare(rule("promotion-zero-crashes", "crashes (500) on promotion_id 0",
		func(p *policy) { p.promotionZeroPanics = true }))
	// FaultEmptyPartsCrashes reads the first key of parts, so an empty
	// parts object crashes the server (500).
	FaultEmptyPartsCrashes = declare(rule("empty-parts-crashes", "crashes (500) on an empty parts object",
		func(p *policy) { p.emptyPartsPanics = true }))
	// FaultInactiveProductDebitKept debits the wallet for a payment it then
	// refuses because the product is not for sale.
	FaultInactiveProductDebitKept = declare(rule("inactive-product-debit-kept", "debits the wallet for a payment it then refuses because the product is not for sale",
		func(p *policy) { p.debitRefusedProduct = true }))
	// FaultZeroPageSizeCrashes accepts pageSize 0 and divides by it (500).
	FaultZeroPageSizeCrashes = declare(rule("zero-page-size-crashes", "accepts pageSize 0 and crashes (500) dividing by it",
		func(p *policy) { p.minPageSize = 0 }))
	// FaultStaleWalletTakesCoins takes coins before balance from the third
	// payment after the account's last profile read, although the balance
	// suffices (a wallet cache refreshed only by profile reads).
	FaultStaleWalletTakesCoins = declare(rule("stale-wallet-takes-coins", "takes coins before balance from the third payment after the account's last profile read",
		func(p *policy) { p.staleWalletAfter = 3 }))
	// FaultDuplicateOverwritesProduct stores the product of a refused
	// duplicate on the first transaction, so its status record shows the
	// refused request's product.
	FaultDuplicateOverwritesProduct = declare(rule("duplicate-overwrites-product", "stores the product of a refused duplicate payment on the first transaction",
		func(p *policy) { p.duplicateRewritesProduct = true }))
	// FaultReprovisionResetsWallet empties the wallet of an account whose
	// phone number is provisioned again.
	FaultReprovisionResetsWallet = declare(rule("reprovision-resets-wallet", "empties the wallet of an account whose phone number is provisioned again",
		func(p *policy) { p.walletResetOnSync = true }))
	// FaultStatusAmountDrifts adds a rupiah to a transaction's total on
	// every status lookup after the second.
	FaultStatusAmountDrifts = declare(rule("status-amount-drifts", "adds a rupiah to a transaction's total on every status lookup after the second",
		func(p *policy) { p.amountDriftAfterLookups = 2 }))

	// The faults below are found by the load tester (loadtest/): the retry
	// scenario and the history check.
	// FaultRetryDebitsAgain debits a payment whose partner_trx_id is already
	// used again before refusing it with 409, so a partner's retry after a
	// lost answer is debited twice.
	FaultRetryDebitsAgain = declare(rule("retry-debits-again", "debits a payment whose partner_trx_id is used again before refusing it with 409",
		func(p *policy) { p.debitUsedID = true }))
	// FaultStaleProfile serves the profile's balance and coins from a cache
	// refreshed at most every staleProfileFor, so a read can miss the latest
	// payments (a stale read).
	FaultStaleProfile = declare(rule("stale-profile", "serves the profile's balance and coins from a cache up to 1 s old",
		func(p *policy) { p.profileCacheFor = staleProfileFor }))
	// FaultThrottledButProcessed answers 429 Too Many Requests (Retry-After:
	// 0) in place of a payment it created: a throttled request is refused,
	// not processed (§8 shows no rate limit; a 429 refuses the request), so
	// the same request sent again meets a used partner_trx_id (409), and the
	// wallet was debited for a payment no answer acknowledged.
	FaultThrottledButProcessed = declare(wire("throttled-but-processed", "answers 429 (Retry-After: 0) in place of a payment it created: a throttled request that was processed"))

	// A wallet outside the range a mixed payment leaves open, above it and
	// below it.
	// FaultMixedWalletCredited adds the balance and coins a mixed payment
	// (a wallet part and a remainder due through a gateway) reports taking
	// to the wallet instead of taking them: the wallet then holds more than
	// it did before the payment.
	FaultMixedWalletCredited = declare(rule("mixed-wallet-credited", "adds to the wallet the balance and coins a payment with a gateway remainder reports taking, instead of taking them",
		func(p *policy) { p.mixedCredited = true }))
	// FaultMixedWalletTakenTwice takes the balance and coins a mixed
	// payment reports taking twice: the wallet then holds less than the
	// payment reports leaving (less than nothing, when it took it all).
	FaultMixedWalletTakenTwice = declare(rule("mixed-wallet-taken-twice", "takes twice the balance and coins a payment with a gateway remainder reports taking",
		func(p *policy) { p.mixedTakenTwice = true }))

	// FaultGatewayPaymentsRefused refuses every payment through a gateway
	// method (payment_method_id other than 0) with 422 "Saldo tidak
	// mencukupi.", and takes nothing. For one payment that is an answer the
	// document allows (§7 Payment: 422 create, "Payment cannot be processed
	// yet"); for every one, it leaves the rules of gateway payments with
	// nothing to judge them on. It breaks no sentence a client can hold it
	// to, so no judge fails it: a run against it must end INCOMPLETE, its
	// rules not judged, never PASS (issue 35 part 5).
	FaultGatewayPaymentsRefused = declare(rule("gateway-payments-refused", `refuses every payment through a gateway method with 422 "Saldo tidak mencukupi." (legal once; for every one, the run is INCOMPLETE)`,
		func(p *policy) { p.refuseGateway = true }))
)

// AllFaults lists every fault, in declaration order.
func AllFaults() []Fault { return faultTable.All() }

// Describe is the fault's one line: the departure from the API document it
// makes, as `reference --list-faults` prints it; "" for an unknown fault.
func (f Fault) Describe() string {
	s, _ := faultTable.Spec(f)
	return s.Line
}

// ParseFaults reads a comma-separated list of fault names ("" is none). A
// name that is not a fault is an error wrapping errUnknownFault that lists
// the names there are.
func ParseFaults(list string) ([]Fault, error) { return faultTable.Parse(list) }

// IsRuleFault reports whether f bends a domain rule; the other faults are
// served by package httpapi.
func IsRuleFault(f Fault) bool { return faultTable.Layer(f) == LayerRule }

// All lists the table's faults, in order.
func (t FaultTable) All() []Fault {
	out := make([]Fault, len(t))
	for i, s := range t {
		out[i] = s.Fault
	}
	return out
}

// Spec returns the declaration of f, if the table holds it.
func (t FaultTable) Spec(f Fault) (FaultSpec, bool) {
	for _, s := range t {
		if s.Fault == f {
			return s, true
		}
	}
	return FaultSpec{}, false
}

// errUnknownFault marks a fault name that is not one of the table's.
var errUnknownFault = errors.New("unknown fault")

// Parse reads a comma-separated list of fault names ("" is none). A name
// that is not a fault of the table is an error wrapping errUnknownFault
// that lists the names there are.
func (t FaultTable) Parse(list string) ([]Fault, error) {
	var out []Fault
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		f := Fault(name)
		if _, ok := t.Spec(f); !ok {
			names := make([]string, 0, len(t))
			for _, s := range t {
				names = append(names, string(s.Fault))
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

// Layer returns the layer of f, 0 when the table does not hold it.
func (t FaultTable) Layer(f Fault) Layer {
	s, _ := t.Spec(f)
	return s.Layer
}

// Shapes returns the faults that change the shape of an answer, each with
// the JSON pointer of the value it changes ("" for the body as a whole).
func (t FaultTable) Shapes() map[Fault]string {
	out := map[Fault]string{}
	for _, s := range t {
		if s.Shape != nil {
			out[s.Fault] = *s.Shape
		}
	}
	return out
}

// policy returns the document's policy bent by the table's rule faults
// among faults.
func (t FaultTable) policy(faults []Fault) policy {
	p := documentPolicy()
	for _, f := range faults {
		if s, _ := t.Spec(f); s.bend != nil {
			s.bend(&p)
		}
	}
	return p
}

// staleProfileFor is how long FaultStaleProfile serves a cached wallet.
const staleProfileFor = time.Second

// staleWallet is a wallet as FaultStaleProfile cached it.
type staleWallet struct {
	at             time.Time
	balance, coins int64
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
func policyWith(faults []Fault) policy { return faultTable.policy(faults) }
