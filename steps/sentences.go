package steps

import "github.com/partnercommerce/conformance/internal/contract"

// The sentences of the API document that steps check. A failure names the
// sentence it checks, so a partner can look it up. Where the suite applies a
// reading of a sentence rather than its letter, the text says "Reading:"
// (docs/conformance-readings.md lists them all).
const (
	secEveryJSON        = "§1: Every response is JSON and carries status (boolean) and message (string)."
	secPartnerAccount   = "§1: \"A partner creates or synchronizes customer accounts (shop, outlet, branch, cashier, child-partner) under the partner and obtains a token per account.\""
	secChargedPrice     = "§1: Products and prices shown follow the partner's own commercial configuration. The transaction value is recalculated by the service when the payment is created, using the partner's commercial configuration. Reading: amount.total (§2.7 \"Total in rupiah\") is the pricing.final_price (§2.1) of the payer's catalog; through a gateway method it may also include that method's service_fee.amount (§2.4), on which the document is silent."
	secPricePlan        = "§1: When that configuration is not active, endpoints may answer with the message: " + contract.MsgPricePlan + " §7: When the commercial price configuration is inactive, product list and payment creation may fail with the message given in section 1."
	secProduct          = "§2.1 Product: id, code, name, description, pricing.base_price, pricing.final_price, promotion (object or null), status (active or inactive), operator.id, operator.name, operator.logo."
	secPagination       = "§2.2 Pagination object (product sync): total, page, perPage, totalPages (integers). §4.2: page \"Page number. Default 1.\"; pageSize \"Records per page. Maximum 100.\""
	secPagingReading    = secPagination + " Reading: perPage is the pageSize asked for; totalPages = ceil(total / perPage); every page but the last holds perPage products; total and perPage are the same on every page; paging through pages 1 to totalPages yields each of the total products exactly once."
	secProfile          = "§2.3 Customer (profile): customer.*, balance.available (integer rupiah), coin.available, coin.available_value (coins / 2)."
	secCoinAvailValue   = "§2.3: coin.available_value (integer) — \"Rupiah value of the coins (coins / 2).\" §8: Coin conversion — 2 coins = 1 rupiah."
	secCoinRounding     = secCoinAvailValue + " Reading: the value is an integer, so an odd coin is worth nothing (coins / 2 rounded down)."
	secMethod           = "§2.4 Payment method: id, code, name, group, payment_gateway, payment_type, image, minimum_payment, service_fee.type, service_fee.amount."
	secTransaction      = "§2.5: transaction.transaction_number — \"Service-generated number; contains slashes.\" transaction.partner_trx_id — \"Echo of the partner's id.\""
	secDeveloperNotes   = "§2.5: developer_notes.coin_conversion and developer_notes.gateway_payment are texts."
	secStatusRecord     = "§2.6 Payment status record: partner_trx_id, transaction_number, product, operator, payment_status, transaction_status, amount, payment_method, created_at and updated_at (YYYY-MM-DD HH:MM:SS)."
	secCoinValue        = "§2.7: coin_value_used — \"Rupiah value of the coins taken (2 coins = 1 rupiah).\""
	secPaid             = "§3: payment_status PAID — \"Payment finished.\" transaction_status is one of WAITING_PAYMENT, PROCESSING, SUCCESS, FAILED."
	secAuthRowsProducts = "§7 Products: 401 all — \"" + contract.MsgSecretKeyInvalid + ", " + contract.MsgTokenRequired + ", or " + contract.MsgTokenInvalidExpired + "\""
	secAuthRowsAccess   = "§7 Customer/Payment: 401 all — \"A message beginning " + contract.AccessDeniedPrefix + ", or " + contract.MsgTokenRequired + ", or " + contract.MsgTokenInvalid + "\""
	secSyncToken        = "§5: \"Product sync accepts only the token of the main partner account; any other token gets 403.\""
	secInactive         = "§3: Product status inactive — \"Not available for sale\"."
	secInternalMethod   = "§2.4: \"The internal balance/coin method (id 0) is returned in a payment with code BALANCE, gateway SALDO, type COIN.\""
	secPerPage          = "§4.2: pageSize — \"Records per page. Maximum 100.\" §2.2: perPage."
	secSubCategories    = "§4.1: sub_category values prabayar, paket-data, paket-sms. §7 Products: 200 list \"Loaded\" OK; 200 all \"Sub category exists but inactive\" " + contract.MsgSubCategoryInactive
	secEmailValid       = "§4.4: email — \"Valid and unique per partner.\""
	secPerPartner       = "§4.4: phone_number — \"unique per partner\"; email — \"Valid and unique per partner.\" §7 Customer: 201 provision, New account created."
	secObserved         = "§3: \"Observed combination: a payment fully covered by balance/coins is returned with payment_status PAID and transaction status PROCESSING.\""
	secProvision        = "§4.4: When phone_number already exists under the same partner, the existing account is synchronized and its token is returned."
	secProvisionBody    = "§4.4: Response: status, message, data.customer_id (integer), data.token (string)."
	secPhoneFormat      = "§2.3: customer.phone_number — Indonesian format. Reading: the number is compared in national form (spaces and dashes dropped, a leading +62 or 62 read as 0)."
	secTokenProfile     = "§5: The bearer token identifies a customer account; the profile is read from the token in use. The token returned by provision_account is the one for that customer account."
	secBalanceFirst     = "§4.6 rule 1: Balance is used first. When balance suffices, coins are not deducted even when use_coin is true."
	secRemainder        = "§4.6 rule 4: Any remainder not covered by balance/coins is reported in transaction.amount.gateway_payment and payment."
	secIsRequired       = "§2.5: payment.is_required — \"True when a remainder must still be paid through a gateway.\" payment.amount — \"Amount still to pay through the gateway.\""
	secUniqueTrx        = contract.SentenceUniqueTrxID
	secUnprocessable    = "§7 Payment: 422 create, \"Payment cannot be processed yet\" — \"Follows the message of the payment response.\""
	secStatusLookup     = "§4.7: \"Looks up one transaction by exactly one of these query parameters\": partner_trx_id or transaction_number."
	secAuth             = "§5: Failures return HTTP 401 (messages in section 7)."
	secPageSizeMax      = "§8: pageSize maximum — product sync — 100."
	secCatalogFixture   = "§4.2: Synchronizes the catalog to the partner system."
	secProfileLoaded    = "§4.3: Returns the profile of the account that owns the token."
	secNotFound         = contract.SecNotFound
	secCreated          = "§4.6 rule 3: Success: HTTP 200, message " + contract.MsgCreated

	// The checks below rest on the isolation of partners and on nothing
	// being lost or charged twice; the document implies them. Their exact
	// answers are readings (readings.go).
	secTokenOtherPartner = secAuth + " §7: 401 all, \"Wrong secret key or token\". " + secPartnerAccount +
		" A token obtained under one partner, sent with another partner's secret key, is a wrong secret key or token."
	secStatusOtherPartner = secStatusLookup + " " + secPartnerAccount +
		" A transaction created by an account of one partner is not shown to another partner."
	secNothingAfter409 = secUniqueTrx + " " + contract.SentenceRefusalTakesNothing +
		" So the wallet is debited only by the first payment."
	secNothingAfter422 = secUnprocessable + " " + contract.SentenceRefusalTakesNothing
)
