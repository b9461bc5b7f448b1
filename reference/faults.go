package reference

// Fault is a deliberate departure from the API document that tests can switch
// on to prove that the conformance suite and the load tester detect it. Faults
// are off by default and can only be set through WithFaults, which no flag of
// cmd/reference reaches.
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
)

// AllFaults lists every fault, in declaration order.
func AllFaults() []Fault {
	return []Fault{
		FaultMessageTypo, FaultProvisionCreatedAs200, FaultCoinsBeforeBalance,
		FaultCoinValueNotHalved, FaultDuplicateTrxAccepted, FaultRacyDuplicateCheck,
		FaultLostUpdateDebit, FaultSyncOpenToAnyToken, FaultStatusCrossPartner,
		FaultTokenAcrossPartners, FaultProductWithoutLogo, FaultCustomerIDAsString,
		FaultPaginationOffByOne, FaultInternalMethodWithoutFunds, FaultNoTrxIDLimit,
		FaultNoShiftCodeLimit, FaultNoPageSizeLimit, FaultPhoneNotValidated,
		FaultProvisionNewIDOnSync, FaultDuplicateEmailAccepted, FaultProductTokenMessage,
		FaultStatusEmptyAs404, FaultBasePriceCharged, FaultTrxNumberWithoutSlash,
		FaultCoveredPaymentUnpaid, FaultInactiveSubCategoryServed, FaultGatewayRemainderHidden,
		FaultPricePlanIgnored, FaultErrorsAsText,
	}
}

// faultSet is the set of faults a store was built with. The zero value has none.
type faultSet map[Fault]bool

func (f faultSet) has(x Fault) bool { return f[x] }
