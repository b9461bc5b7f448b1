package contract

//go:generate go run gen_readings_doc.go

import (
	"fmt"
	"slices"
	"strings"
)

// A check either follows from the document's words (a stated field, type,
// status, message, rule or limit) or rests on a reading: an interpretation of
// a sentence. A failed document check fails its scenario or property; a
// failed reading is a warning, unless the run is strict. Every judge (the
// suite, the generated mode, the load tester) grades by this registry.

// Reading is one interpretation of the API document a check rests on. The
// registries below are the one place readings are written;
// docs/conformance-readings.md is generated from them.
type Reading struct {
	// ID names the reading in reports; it never changes once published.
	ID string
	// Sentence is the document's sentence, quoted with its section.
	Sentence string
	// Text is how the judge reads the sentence.
	Text string
}

// Warning is a reading a server did not follow.
type Warning struct {
	Reading  string `json:"reading"`
	Sentence string `json:"sentence"`
	Detail   string `json:"detail"`
}

func (w Warning) String() string {
	return fmt.Sprintf("WARNING (reading %s): %s\n  reads: %s", w.Reading, strings.TrimSpace(w.Detail), w.Sentence)
}

// Warn is the warning of a failed check that rests on r.
func (r Reading) Warn(detail string) Warning {
	return Warning{Reading: r.ID, Sentence: r.Sentence, Detail: detail}
}

// Readings lists the readings of the hand-written suite. A scenario that
// applies one carries the tag @reading:<id> (a feature whose every scenario
// applies it carries the tag itself), from which
// docs/conformance-readings.md lists the scenarios.
func Readings() []Reading { return slices.Clone(suiteReadings) }

// GeneratedReadings lists the readings of the generated mode.
func GeneratedReadings() []Reading { return slices.Clone(generatedReadings) }

// LoadReadings lists the readings of the load tester's own checks.
func LoadReadings() []Reading { return slices.Clone(loadReadings) }

// LookupReading returns the reading of id, of the suite or the generated
// mode, if the registry has it.
func LookupReading(id string) (Reading, bool) {
	for _, list := range [][]Reading{suiteReadings, generatedReadings, loadReadings} {
		for _, r := range list {
			if r.ID == id {
				return r, true
			}
		}
	}
	return Reading{}, false
}

// MustReading returns the reading of id; an unknown id is a programming
// error, which the callers' tests rule out.
func MustReading(id string) Reading {
	r, ok := LookupReading(id)
	if !ok {
		panic("contract: unknown reading " + id)
	}
	return r
}

// suiteReadings is every reading the suite makes: one literal per reading.
var suiteReadings = []Reading{
	{
		ID:       "coin-value-rounds-down",
		Sentence: "§2.3 coin.available_value (integer): \"Rupiah value of the coins (coins / 2).\" §8: \"2 coins = 1 rupiah\".",
		Text:     "The value of an odd number of coins is rounded down: the field is an integer, so an odd coin is worth nothing. Document-level: the value is coins / 2, rounded either way.",
	},
	{ID: "price-plan-message",
		Sentence: "§1: \"When that configuration is not active, endpoints may answer with the message: Price plan API mitra belum dikonfigurasi, ...\" §7: \"product list and payment creation may fail with the message given in section 1.\"",
		Text:     "For a partner whose price plan is not active, the product list and payment creation do fail, with that message (the document says \"may\"; where the message appears it must be byte-exact, which is checked at document level)."},
	{ID: "charged-final-price",
		Sentence: "§1: \"The transaction value is recalculated by the service when the payment is created, using the partner's commercial configuration.\" §2.7: total — \"Total in rupiah.\"",
		Text:     "amount.total is the pricing.final_price (§2.1) the payer's own catalog shows; through a gateway method it may also include that method's service_fee.amount (§2.4)."},
	{ID: "paging-arithmetic",
		Sentence: "§2.2 Pagination object: total, page, perPage, totalPages. §4.2: pageSize — \"Records per page.\"",
		Text:     "perPage is the pageSize asked for; every page but the last holds perPage products; total and perPage are the same on every page, so every page's totalPages is ceil(total / perPage) with its own perPage; paging through pages 1 to totalPages yields each of the total products exactly once. Document level: a page holds no more products than the pageSize asked for (CheckPageSize), and the first page's totalPages is ceil(total / perPage), only the empty catalog free (0 or 1) (CheckTotalPages)."},
	{ID: "profile-customer-id",
		Sentence: "§5: \"The token returned by provision_account is the one for that customer account.\" §4.4: data.customer_id.",
		Text:     "The profile read with a new token shows as customer.id the customer_id provisioning returned."},
	{ID: "paid-processing",
		Sentence: "§3: \"Observed combination: a payment fully covered by balance/coins is returned with payment_status PAID and transaction status PROCESSING.\" \"Transitions between these states: not shown.\"",
		Text:     "The transaction of a fully covered payment is still PROCESSING when the payment is answered (document level: payment_status PAID and a documented transaction status; a server that settles at once answers SUCCESS)."},
	{ID: "no-remainder-fields",
		Sentence: "§2.5: payment.is_required — \"True when a remainder must still be paid through a gateway.\" §4.6 rule 4: \"Any remainder not covered by balance/coins is reported in transaction.amount.gateway_payment and payment.\"",
		Text:     "A payment fully covered by balance/coins has gateway_payment 0, is_required false and payment.amount 0, and balance_used + coin_value_used = total."},
	{ID: "coins-only-no-balance",
		Sentence: "§4.6: use_balance — \"Use the customer's balance.\" use_coin — \"Use coins after balance.\"",
		Text:     "With use_balance false no balance is taken, and coin_value_used + gateway_payment = total."},
	{ID: "wallet-debited",
		Sentence: "§2.7: balance_used — \"Rupiah taken from balance.\" coin_used — \"Coins taken.\" gateway_payment — \"Rupiah to be paid through a payment gateway.\"",
		Text: "A payment whose remainder goes to a gateway (gateway_payment > 0) takes its balance_used and coin_used when it is created: the profile read right after it shows balance.available and coin.available lower by exactly these amounts, and the next payment spends from that wallet. " +
			"Document level (CheckWalletAsReported, CheckSplit): the wallet lies between what the payments' reported amounts leave and that plus the balance and coins of the payments whose gateway part is still unpaid (such a payment may take them when it is created or when its gateway part is paid); after payments fully covered by balance and coins (PAID, \"Payment finished\", §3), it is exactly what they leave."},
	{ID: "status-record-amounts",
		Sentence: "§4.7: \"Looks up one transaction\". §2.6: product, amount (2.7).",
		Text:     "The record's product.id and amounts are those of the answer that created the payment."},
	{ID: "auth-message-per-condition",
		Sentence: "§7 Products: 401 all, \"Wrong secret key or token\" — \"Secret Key tidak valid., Token wajib diisi., or Token tidak valid atau sudah kedaluwarsa.\" §7 Customer/Payment: 401 all — \"A message beginning Akses ditolak, or Token wajib diisi., or Token tidak valid.\"",
		Text:     "Within a row, a wrong secret key is answered \"Secret Key tidak valid.\" (products) or a message beginning \"Akses ditolak\" (customer, payment), a missing token \"Token wajib diisi.\", an invalid token \"Token tidak valid atau sudah kedaluwarsa.\" (products) or \"Token tidak valid.\" (customer, payment). Document level: status 401 and a message of the endpoint's row."},
	{ID: "sync-token-401",
		Sentence: "§5: \"Product sync accepts only the token of the main partner account; any other token gets 403.\" \"Failures return HTTP 401 (messages in section 7).\"",
		Text:     "Product sync with a missing or invalid token answers 401, as every endpoint does; 403 is kept for a valid token of an account that is not the main partner account (document level: 401 with a products message, or 403 with the sync message)."},
	{ID: "cross-partner-token-401",
		Sentence: "§5: \"The bearer token identifies a customer account\". §7: 401 all, \"Wrong secret key or token\".",
		Text:     "A token obtained under one partner, sent with another partner's secret key, is a wrong secret key or token: 401 with a message of the endpoint's row (document level: no 2xx answer)."},
	{ID: "cross-partner-status-404",
		Sentence: "§4.7: \"Looks up one transaction\". §7 Payment: 404 status, \"Transaction not found\" — Transaksi tidak ditemukan.",
		Text:     "Another partner's transaction is answered as an unknown one: 404 \"Transaksi tidak ditemukan.\" (document level: no 2xx answer and no record)."},
	{ID: "sync-default-page-is-page-1",
		Sentence: "§4.2 / §8: page, \"Default 1\".",
		Text:     "A sync without page returns the same products, in the same order, as page=1 read right after it (by the same account, for the same sub category)."},
	{ID: "phone-compared-in-national-form",
		Sentence: "§2.3: customer.phone_number, \"Indonesian format.\" §5: \"the profile is read from the token in use.\"",
		Text:     "The profile's phone number is compared with the provisioned one in national form: spaces and dashes are dropped, and a leading +62 or 62 is read as 0. Name and email must match exactly."},
	{ID: "use-flags-left-out-are-off",
		Sentence: "§4.6 rule 2: \"When payment_method_id is 0 and neither use_balance nor use_coin is enabled, the request is rejected (400).\"",
		Text:     "A use_balance or use_coin that is left out counts as not enabled."},
	{ID: "gateway-remainder-is-created",
		Sentence: "§4.6 rules 3 and 4. §2.4: minimum_payment, \"Rupiah.\"",
		Text:     "A payment whose remainder goes to a gateway is created: gateway_payment = total - balance_used - coin_value_used > 0, is_required is true and payment.amount > 0. A gateway method may be used for a price at or above its minimum_payment."},
	{ID: "short-balance-all-used",
		Sentence: "§4.6 rule 1: \"Balance is used first.\" §2.7: coin_value_used (2 coins = 1 rupiah).",
		Text:     "When the balance is short, all of it is used, and coins cover the rest at 2 coins per rupiah."},
	{ID: "query-empty-either-parameter",
		Sentence: "§7 Products: 400 list, \"Query empty\", phone_number dan sub_category wajib diisi.",
		Text:     "\"Query empty\" means either query parameter is missing or empty, or both are."},
	{ID: "required-field-missing-is-empty",
		Sentence: "§7 Customer: 400 provision, \"Required field empty\". §7 Payment: 400 create, \"Required field empty\".",
		Text:     "\"Required field empty\" also covers a field that is missing from the body."},
	{ID: "unlisted-method-not-available",
		Sentence: "§7 Payment: 400 create, \"Method not available\", Metode pembayaran tidak tersedia.",
		Text:     "A payment_method_id that is not in the methods list (and is not 0) is not available."},
	{ID: "unprocessable-any-message",
		Sentence: "§7 Payment: 422 create, \"Payment cannot be processed yet\": \"Follows the message of the payment response.\"",
		Text:     "Any non-empty message is accepted with the 422."},
}

// generatedReadings is every reading the generated mode makes.
var generatedReadings = []Reading{
	// a refused request says so in its body.
	{
		ID:       "generated-refusal-status-false",
		Sentence: "§1 \"Every response is JSON and carries `status` (boolean) and `message` (string).\"",
		Text:     "A refused request (4xx) carries `status` false and a message that is not empty.",
	},
	// a request outside the request schema is refused.
	{
		ID:       "generated-types-refused",
		Sentence: "§4 \"JSON bodies use `Content-Type: application/json`.\" and the Type columns of 4.1 to 4.7",
		Text: "A request whose body or query breaks a type openapi.yaml takes from the document (a wrong JSON type, " +
			"malformed JSON, an empty body, an integer beyond int64) is refused (no 2xx).",
	},
	// coins cover as much of the remainder as they can.
	{
		ID:       "generated-coins-cover-remainder",
		Sentence: "§4.6 \"`use_coin` | Use coins after balance.\"",
		Text:     "With `use_coin`, the coins cover min(coins / 2, what balance left) rupiah; only the rest goes to the gateway.",
	},
}

// loadReadings is every reading the load tester makes beyond the suite's
// (status-record-amounts, which it grades as the suite does).
var loadReadings = []Reading{
	// the refusals of an idempotency wave are one refusal.
	{
		ID: "wave-refusals-alike",
		Sentence: "§7 Payment: 409 create, \"partner_trx_id already used\"; 422 create, \"Payment cannot be processed yet\" — " +
			"\"Follows the message of the payment response.\"",
		Text: "In an idempotency wave (the same payment request, one partner_trx_id, sent several times at once), every request that " +
			"is neither created nor answered 409 is refused with one and the same status and message. Document level: at most one " +
			"request of a wave is created, and a 409 answers a wave in which some request was created, refused, or went unanswered.",
	},
	// a customer's payments and profile reads are linearizable.
	{
		ID:       "history-linearizable",
		Sentence: "§2.7: balance_used — \"Rupiah taken from balance.\" coin_used — \"Coins taken.\" §2.3: balance.available, coin.available.",
		Text: "A customer's successful payments and profile reads, made at the same time, are explained by one serial order in which " +
			"each takes effect at one instant between its request and its answer: every profile read shows the wallet less the " +
			"payments before it in that order (linearizability, checked with porcupine). Document level (the reconciliation): after " +
			"the run, each wallet is lower by exactly what the created payments reported taking.",
	},
}
