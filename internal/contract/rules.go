package contract

import (
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/partnercommerce/conformance/api"
)

// The document-level rules below follow from the document's words, so a
// server that breaks one fails every judge that can see it (never only a
// warning). Each is written once, with the sentence it rests on.

// SentenceContentType is the sentence CheckContentType rests on.
const SentenceContentType = "§4: \"JSON bodies use `Content-Type: application/json`.\" §1: \"Every response is JSON\": " +
	"a response body is a JSON body, so it is labelled application/json (a parameter such as charset may follow)."

// ErrContentType is a JSON response not labelled application/json.
var ErrContentType = errors.New("not application/json")

// CheckContentType checks the Content-Type of a response with a JSON body:
// the media type application/json, in any case, with any parameters.
func CheckContentType(contentType string) error {
	if contentType == "application/json" {
		return nil // the common answer, without parsing: the load tester checks every one
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type %q is %w (%s)", contentType, ErrContentType, SentenceContentType)
	}
	return nil
}

// SentenceTotalPages is the sentence CheckTotalPages rests on.
const SentenceTotalPages = "§2.2 Pagination: total, perPage, totalPages; §4.2: pageSize — \"Records per page.\" " +
	"A catalog of total products at perPage a page has ceil(total / perPage) pages: the last page counts, full or not. " +
	"Only the empty catalog is free (0 or 1 pages)."

// ErrTotalPages is a totalPages that does not count every page.
var ErrTotalPages = errors.New("totalPages does not count every page")

// TotalPages is the number of pages of total products at perPage a page
// (ceil(total / perPage); 0 for an empty catalog).
func TotalPages(total, perPage int64) int64 {
	if total <= 0 || perPage <= 0 {
		return 0
	}
	return (total + perPage - 1) / perPage
}

// CheckTotalPages checks the page count of a catalog page whose perPage is
// the number of products a full page holds (the first page, or any page
// when perPage echoes pageSize).
func CheckTotalPages(total, perPage, totalPages int64) error {
	if perPage < 1 {
		return nil // the caller refuses a perPage below 1 on its own
	}
	want := TotalPages(total, perPage)
	if totalPages == want || total == 0 && totalPages == 1 {
		return nil
	}
	return fmt.Errorf("%w: totalPages is %d, but %d products at %d a page are ceil(%d / %d) = %d pages (%s)",
		ErrTotalPages, totalPages, total, perPage, total, perPage, want, SentenceTotalPages)
}

// SentenceWalletWithinTotal is the sentence CheckWalletWithinTotal rests on.
const SentenceWalletWithinTotal = "§4.6 rule 4: \"Any remainder not covered by balance/coins is reported in transaction.amount.gateway_payment\": " +
	"balance and coins cover the total or a part of it, never more, so balance_used + coin_value_used <= total."

// errWalletOverTotal is a payment whose balance and coins pay more than its
// total.
var errWalletOverTotal = errors.New("balance and coins pay more than the total")

// CheckWalletWithinTotal checks that a payment takes from the wallet at most
// its total. How a gateway method's fee is charged (inside total, on top of
// gateway_payment) is not written, so gateway_payment is not bounded here.
func CheckWalletWithinTotal(a api.Amount) error {
	if a.BalanceUsed+a.CoinValueUsed > a.Total {
		return fmt.Errorf("%w: balance_used %d + coin_value_used %d > total %d (%s)",
			errWalletOverTotal, a.BalanceUsed, a.CoinValueUsed, a.Total, SentenceWalletWithinTotal)
	}
	return nil
}

// SentenceRefusalTakesNothing is the sentence CheckRefusalTakesNothing
// rests on.
const SentenceRefusalTakesNothing = "§2.7: balance_used — \"Rupiah taken from balance.\" coin_used — \"Coins taken.\" " +
	"Every debit is reported in a transaction's amounts; a refused request (409, 422 or any other refusal) creates no transaction, " +
	"so the wallet is unchanged."

// errRefusalTook is a refused request that changed the wallet.
var errRefusalTook = errors.New("a refused request took from the wallet")

// Wallet is what a profile shows a customer holds (section 2.3).
type Wallet struct {
	Balance int64
	Coins   int64
}

// CheckRefusalTakesNothing compares the wallet read before a refused
// request with the one read after it.
func CheckRefusalTakesNothing(before, after Wallet) error {
	if before != after {
		return fmt.Errorf("%w: balance %d → %d and coins %d → %d (%s)",
			errRefusalTook, before.Balance, after.Balance, before.Coins, after.Coins, SentenceRefusalTakesNothing)
	}
	return nil
}

// SentenceCoinsOnlyWhenAsked is the sentence CheckCoinsOnlyWhenAsked rests
// on.
const SentenceCoinsOnlyWhenAsked = "§4.6: use_coin — \"Use coins after balance.\" A payment whose use_coin is false takes no coins."

// errCoinsNotAsked is a payment that took coins although use_coin was false.
var errCoinsNotAsked = errors.New("coins were taken although use_coin was false")

// CheckCoinsOnlyWhenAsked checks the amounts of a payment sent with
// use_coin false. (A use_coin left out is the reading
// use-flags-left-out-are-off, not this rule.)
func CheckCoinsOnlyWhenAsked(a api.Amount) error {
	if a.CoinUsed != 0 || a.CoinValueUsed != 0 {
		return fmt.Errorf("%w: coin_used %d, coin_value_used %d (%s)", errCoinsNotAsked, a.CoinUsed, a.CoinValueUsed, SentenceCoinsOnlyWhenAsked)
	}
	return nil
}

// Record is what a judge compares of a payment status record (section
// 2.6) with the answer that created the payment.
type Record struct {
	PartnerTrxID, TransactionNumber string
	ProductID                       int64
	Amount                          api.Amount
}

// SentenceFound is the sentence a created payment that payment status
// does not find breaks.
const SentenceFound = "§4.6 rule 3: \"On success, the response is HTTP 200 with status true and message " + MsgCreated + "\": " +
	"the payment is created; §4.7: payment status \"Looks up one transaction\", so a created payment is found " +
	"(§7 Payment: 404 status, \"Transaction not found\" — " + MsgNotFound + " is for a transaction that does not exist)."

// SentenceRecordNamed is the sentence CheckRecordNamed rests on.
const SentenceRecordNamed = "§4.7: \"Looks up one transaction by exactly one of these query parameters\": " +
	"the record is that of the transaction named, with its partner_trx_id and transaction_number."

// ErrRecordNotNamed is a status record of another transaction than the one
// looked up.
var ErrRecordNotNamed = errors.New("the record is not that of the transaction named")

// CheckRecordNamed checks that a status record names the payment created.
func CheckRecordNamed(created, record Record) error {
	if record.PartnerTrxID != created.PartnerTrxID || record.TransactionNumber != created.TransactionNumber {
		return fmt.Errorf("%w: partner_trx_id %q and transaction_number %q, but the payment was created as %q and %q (%s)", ErrRecordNotNamed,
			record.PartnerTrxID, record.TransactionNumber, created.PartnerTrxID, created.TransactionNumber, SentenceRecordNamed)
	}
	return nil
}

// errRecordNotAsCreated is a status record whose product or amounts are not
// those of the answer that created the payment.
var errRecordNotAsCreated = errors.New("the record's product or amounts are not the payment's as it was created")

// CheckRecordAsCreated compares the product and amounts of a status record
// with those of the answer that created the payment: the reading
// status-record-amounts (the document does not say it in so many words).
func CheckRecordAsCreated(created, record Record) error {
	var differ []string
	for _, f := range []struct {
		name      string
		got, want int64
	}{
		{"product.id", record.ProductID, created.ProductID},
		{"amount.total", record.Amount.Total, created.Amount.Total},
		{"amount.balance_used", record.Amount.BalanceUsed, created.Amount.BalanceUsed},
		{"amount.coin_used", record.Amount.CoinUsed, created.Amount.CoinUsed},
		{"amount.coin_value_used", record.Amount.CoinValueUsed, created.Amount.CoinValueUsed},
		{"amount.gateway_payment", record.Amount.GatewayPayment, created.Amount.GatewayPayment},
	} {
		if f.got != f.want {
			differ = append(differ, fmt.Sprintf("%s is %d, but the payment was created with %d", f.name, f.got, f.want))
		}
	}
	if len(differ) > 0 {
		rd := MustReading("status-record-amounts")
		return fmt.Errorf("%w: %s (%s %s)", errRecordNotAsCreated, strings.Join(differ, "; "), rd.Sentence, rd.Text)
	}
	return nil
}

// errPageOverSize is a page of product sync that holds more products than
// it may.
var errPageOverSize = errors.New("the page holds more products than it may")

// CheckPageSize checks that a page of product sync holds at most limit
// products: the pageSize asked (§4.2: "Records per page.") or the maximum
// of 100 (§8).
func CheckPageSize(products, limit int) error {
	if products > limit {
		return fmt.Errorf("%w: %d products, at most %d", errPageOverSize, products, limit)
	}
	return nil
}

// sentenceSameCustomer is the sentence CheckSameCustomer rests on.
const sentenceSameCustomer = "§4.4: \"When `phone_number` already exists under the same partner, the existing account is synchronized and its token is returned.\""

// errNotSameCustomer is a known phone number provisioned again as another
// customer.
var errNotSameCustomer = errors.New("provisioning a known phone number returned another customer")

// CheckSameCustomer compares the customer_id that provisioning a known
// phone number returned with the existing account's.
func CheckSameCustomer(existing, returned int64) error {
	if returned != existing {
		return fmt.Errorf("%w: customer_id %d, not %d (%s)", errNotSameCustomer, returned, existing, sentenceSameCustomer)
	}
	return nil
}

// errCoinsShort is a payment sent with use_coin whose coins did not cover
// what the reading generated-coins-cover-remainder says they cover.
var errCoinsShort = errors.New("the coins do not cover as much of the remainder as they can")

// CheckCoinsCoverRemainder checks the amounts a of a payment sent with
// use_coin against the wallet before it: coins cover min(coins / 2, what
// balance left) rupiah, for coins anywhere in the range the wallet is
// known to (WalletRange). It is the reading generated-coins-cover-remainder
// (section 4.6 says only "Use coins after balance"), so a judge grades its
// error as that reading.
func CheckCoinsCoverRemainder(before WalletRange, a api.Amount) error {
	rest := a.Total - a.BalanceUsed
	least, most := min(CoinValue(max(before.Reported.Coins, 0)), rest), min(CoinValue(max(before.Most().Coins, 0)), rest)
	if a.CoinValueUsed < least || a.CoinValueUsed > most {
		rd := MustReading("generated-coins-cover-remainder")
		return fmt.Errorf("%w: coins worth %d rupiah were taken where %s were due (%s, total %d, balance_used %d) (%s %s)",
			errCoinsShort, a.CoinValueUsed, span(least, most), before, a.Total, a.BalanceUsed, rd.Sentence, rd.Text)
	}
	return nil
}

// sentenceNotShown is the sentence CheckNotShown rests on.
const sentenceNotShown = "§4.7: \"Looks up one transaction\"; §5: \"The bearer token identifies a customer account\": " +
	"a transaction created under one partner is not shown to another partner (no 2xx answer and no record)."

// errShownToOtherPartner is a transaction shown to another partner.
var errShownToOtherPartner = errors.New("another partner was shown the transaction")

// CheckNotShown checks another partner's lookup of a transaction by
// askedTrxID or askedNumber (either may be empty): its answer's status, and
// data, the answer's decoded data (nil when it has none). Any refusal is
// right (which one is the reading cross-partner-status-404) that shows no
// record: no partner_trx_id nor transaction_number in data but the one the
// lookup asked for (a refusal that echoes the question shows nothing).
func CheckNotShown(status int, data any, askedTrxID, askedNumber string) error {
	fields, _ := data.(map[string]any)
	var shown []string
	for _, f := range []struct{ key, asked string }{{"partner_trx_id", askedTrxID}, {"transaction_number", askedNumber}} {
		if v, ok := fields[f.key]; ok && v != f.asked {
			shown = append(shown, fmt.Sprintf("%s %v", f.key, v))
		}
	}
	if status/100 == 2 || len(shown) > 0 {
		return fmt.Errorf("%w: status %d, the record's %v in the answer (%s)", errShownToOtherPartner, status, shown, sentenceNotShown)
	}
	return nil
}

// sentenceTransactionNamed is the sentence CheckTransactionNamed rests on.
const sentenceTransactionNamed = "§2.5: transaction.transaction_number — \"Service-generated number; contains slashes.\" " +
	"transaction.partner_trx_id — \"Echo of the partner's id.\""

// ErrTransactionNamed is a created transaction whose number has no slash or
// whose partner_trx_id is not the one sent.
var ErrTransactionNamed = errors.New("the transaction is not named as the document says")

// CheckTransactionNamed checks the transaction of a created payment: its
// transaction_number contains a slash and its partner_trx_id echoes the
// one sent.
func CheckTransactionNamed(number, echoed, sent string) error {
	switch {
	case !strings.Contains(number, "/"):
		return fmt.Errorf("%w: transaction_number %q has no slash (%s)", ErrTransactionNamed, number, sentenceTransactionNamed)
	case echoed != sent:
		return fmt.Errorf("%w: the payment echoes partner_trx_id %q, not %q (%s)", ErrTransactionNamed, echoed, sent, sentenceTransactionNamed)
	}
	return nil
}
