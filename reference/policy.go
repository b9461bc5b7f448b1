package reference

import (
	"math"
	"time"
	"unicode/utf8"
)

// policy is the part of the document's rules that the store reads as data:
// limits, formats and the switches of rules a fault may bend (faults.go).
// It is fixed when the store is built and never changes afterwards, so the
// rule code reads it without a lock. documentPolicy is the document's own.
type policy struct {
	split splitPolicy

	// Section 8 limits, counted in characters (runes) by length.
	length          func(string) int
	maxTrxIDLen     int
	maxShiftCodeLen int
	maxPageSize     int
	// firstPage is the number of the page that starts at the first product.
	firstPage int
	// honourPageSize pages product sync by the pageSize asked for.
	honourPageSize bool
	// pagesRoundDown counts totalPages as total / size rounded down.
	pagesRoundDown bool
	// listOnly, when set, is the one sub category whose product list is
	// served; the others are refused as an invalid destination number.
	listOnly string
	// sellInactive sells products whose status is inactive.
	sellInactive bool
	// listPhoneValid checks the product list's destination number.
	listPhoneValid func(string) bool

	// uniqueTrxID refuses a reused partner_trx_id (409).
	uniqueTrxID bool
	// checkAndInsertAtomically keeps the duplicate check and the insertion
	// under one lock hold; debitAtomically does the same for the wallet's
	// read and write. Either false opens a gap (Store.gap) between them.
	checkAndInsertAtomically bool
	debitAtomically          bool
	// internalNeedsFunds refuses method 0 without balance or coins.
	internalNeedsFunds bool
	// chargeBasePrice charges base_price instead of the partner's final_price.
	chargeBasePrice bool
	// trxNumberSep separates the parts of a transaction_number: INV, the
	// date, P and the partner id, and the sequence.
	trxNumberSep string
	// coveredPayment and coveredTransaction are the statuses of a payment
	// fully covered by balance and coins (section 3's observed combination).
	coveredPayment     PaymentStatus
	coveredTransaction TransactionStatus
	// reportRemainder reports a gateway remainder (section 4.6 rule 4).
	reportRemainder bool
	// walletWhenPaid takes the balance and coins of a payment with a gateway
	// remainder only when the gateway part is paid (WithWalletTakenWhenPaid).
	walletWhenPaid bool

	// uniqueEmail refuses an email used by another account of the partner.
	uniqueEmail bool
	// validEmail checks the provisioning email address.
	validEmail func(string) bool
	// accountsPerPartner keeps phone numbers and emails unique per partner
	// only; false refuses those another partner's account uses.
	accountsPerPartner bool
	// keepIDOnSync keeps the customer id of a synchronized account.
	keepIDOnSync bool

	// tokenBoundToPartner refuses a token sent with another partner's key.
	tokenBoundToPartner bool
	// mainOnlySync keeps product sync for the main account (403).
	mainOnlySync bool
	// ownTransactionsOnly hides other partners' transactions from status.
	ownTransactionsOnly bool
	// errStatusEmpty answers a status lookup without parameters.
	errStatusEmpty *Error

	// hideInactiveSubCategories answers an inactive sub category with its notice.
	hideInactiveSubCategories bool
	// enforcePricePlan answers an inactive price plan with the section 1 message.
	enforcePricePlan bool

	// minPageSize is the smallest pageSize sync accepts.
	minPageSize int

	// The switches below only exist for the faults the generated mode finds;
	// the document's value is the zero value.

	// shiftCodeBufferBytes copies shift_code into a buffer of that many
	// bytes before its length is checked; 0 means no buffer.
	shiftCodeBufferBytes int
	// promotionZeroPanics looks up promotion_id 0 and dereferences nothing.
	promotionZeroPanics bool
	// emptyPartsPanics reads the first key of parts.
	emptyPartsPanics bool
	// debitRefusedProduct debits a payment refused for its product.
	debitRefusedProduct bool
	// staleWalletAfter: from that many payments after the account's last
	// profile read, coins go before balance; 0 means never.
	staleWalletAfter int
	// duplicateRewritesProduct stores a refused duplicate's product on the
	// first transaction.
	duplicateRewritesProduct bool
	// walletResetOnSync empties the wallet of a synchronized account.
	walletResetOnSync bool
	// amountDriftAfterLookups: after that many status lookups of a
	// transaction, each lookup adds a rupiah to its total; 0 means never.
	amountDriftAfterLookups int

	// debitUsedID debits a payment with a used partner_trx_id again before
	// refusing it (409).
	debitUsedID bool
	// profileCacheFor, when above 0, serves the profile's balance and coins
	// from a per-account copy at most this old.
	profileCacheFor time.Duration
	// mixedCredited adds a mixed payment's wallet part to the wallet
	// instead of taking it; mixedTakenTwice takes it twice.
	mixedCredited, mixedTakenTwice bool
	// refuseGateway refuses every payment through a gateway method
	// (errGatewayRefused), taking nothing.
	refuseGateway bool
}

// documentPolicy is the policy of the API document and of
// docs/reference-choices.md.
func documentPolicy() policy {
	return policy{
		split:                     splitPolicy{coinsPerRupiah: coinsPerRupiah},
		length:                    utf8.RuneCountInString,
		maxTrxIDLen:               50,
		maxShiftCodeLen:           50,
		maxPageSize:               100,
		firstPage:                 defaultPage,
		honourPageSize:            true,
		listPhoneValid:            validPhoneNumber,
		uniqueTrxID:               true,
		checkAndInsertAtomically:  true,
		debitAtomically:           true,
		internalNeedsFunds:        true,
		trxNumberSep:              "/",
		coveredPayment:            PaymentPaid,
		coveredTransaction:        TransactionProcessing,
		reportRemainder:           true,
		uniqueEmail:               true,
		validEmail:                emailPattern.MatchString,
		accountsPerPartner:        true,
		keepIDOnSync:              true,
		tokenBoundToPartner:       true,
		mainOnlySync:              true,
		ownTransactionsOnly:       true,
		errStatusEmpty:            errStatusQueryEmpty,
		hideInactiveSubCategories: true,
		enforcePricePlan:          true,
		minPageSize:               1,
	}
}

// takesWalletAtCreation reports whether a payment whose price leaves
// remainder to a gateway takes its balance and coins when it is created.
func (p policy) takesWalletAtCreation(remainder int64) bool {
	return !p.walletWhenPaid || remainder <= 0
}

// unlimited is a limit that nothing reaches.
const unlimited = math.MaxInt
