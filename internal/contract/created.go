package contract

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/partnercommerce/conformance/api"
)

// Created is what a judge reads of the answer that created a payment: its
// envelope, the transaction's name and its amounts (section 4.6 rule 3,
// sections 2.5 and 2.7).
type Created struct {
	Status            bool
	Message           string
	TransactionNumber string
	PartnerTrxID      string
	Amount            api.Amount
}

// SentenceCreated is the sentence of the answer CheckCreated checks.
const SentenceCreated = "§4.6 rule 3: \"On success, the response is HTTP 200 with status true and message " + MsgCreated + "\"; " +
	"§7 Payment: 200 create, \"Payment created\"."

// ErrCreatedAnswer is a created payment answered without status true and
// the success message.
var ErrCreatedAnswer = errors.New("the created payment's answer does not carry status true and the success message")

// CheckCreated judges the 200 answer to a payment request sent with the
// partner_trx_id sent, through a method whose service fee is fee
// (UnknownFee when the judge does not know it): status true and the message
// of rule 3, the transaction named as section 2.5 says
// (CheckTransactionNamed), and the amount's arithmetic (checkAmountWithFee).
// Every judge calls it on every payment it sees created. It allocates
// nothing when the answer passes (the load tester calls it per answer).
func CheckCreated(c Created, sent string, fee int64) error {
	if !c.Status || c.Message != MsgCreated {
		return fmt.Errorf("%w: status %v and the message %q (%s)", ErrCreatedAnswer, c.Status, c.Message, SentenceCreated)
	}
	if err := CheckTransactionNamed(c.TransactionNumber, c.PartnerTrxID, sent); err != nil {
		return err
	}
	if err := checkAmountWithFee(c.Amount, fee); err != nil {
		a := c.Amount
		sentence := " (" + SentenceAmount + ")"
		if errors.Is(err, errWalletOverTotal) {
			sentence = "" // it quotes its own
		}
		return fmt.Errorf("%w: total %d, balance_used %d, coin_used %d, coin_value_used %d, gateway_payment %d%s",
			err, a.Total, a.BalanceUsed, a.CoinUsed, a.CoinValueUsed, a.GatewayPayment, sentence)
	}
	return nil
}

// Payment is a created payment as the data of its answer shows it
// (section 4.6 rule 3: transaction, payment, developer_notes), read by
// ReadCreated.
type Payment struct {
	TransactionNumber string
	PartnerTrxID      string
	TransactionStatus string // transaction.status
	PaymentStatus     string // transaction.payment_status
	Amount            api.Amount
	PaymentAmount     int64 // payment.amount
	IsRequired        bool  // payment.is_required
	CoinNote          string
	GatewayNote       string
}

// ErrCreatedData is a created payment's answer without the data of rule 3,
// or whose amount holds a figure that is not an integer.
var ErrCreatedData = errors.New("the created payment's answer does not decode: no data, or an amount that is not an integer")

// SentenceCreatedData is the sentence of the data ReadCreated reads.
const SentenceCreatedData = "§4.6 rule 3: Success: body status, message, data with transaction, payment_method, payment, " +
	"developer_notes; §2.5/§2.7: amounts are integers."

// amountFields are the members of transaction.amount, each an integer.
var amountFields = [...]string{"total", "balance_used", "coin_used", "coin_value_used", "gateway_payment"}

// ReadCreated reads body, the 200 answer to a payment request sent with the
// partner_trx_id sent, and judges it (CheckCreated, the method's fee
// unknown): the one reading of a created payment, which every judge calls.
// It returns the envelope it read; no payment when the envelope (Decode)
// or the data cannot be read, an error wrapping ErrCreatedData for the
// latter; and the payment with CheckCreated's error when it breaks a rule,
// so that a judge can still account for what the server says it took.
// Members it does not judge are read as they are (a string that is not
// one reads as ""): openapi.yaml's validator judges them.
func ReadCreated(body []byte, sent string) (*Payment, Envelope, error) {
	env, fields, err := Decode(body)
	if err != nil {
		return nil, env, err
	}
	var data map[string]any
	if err := Unmarshal(fields["data"], &data); err != nil || data == nil {
		return nil, env, fmt.Errorf("%w: data is %q", ErrCreatedData, fields["data"])
	}
	p := &Payment{
		TransactionNumber: text(data, "transaction", "transaction_number"),
		PartnerTrxID:      text(data, "transaction", "partner_trx_id"),
		TransactionStatus: text(data, "transaction", "status"),
		PaymentStatus:     text(data, "transaction", "payment_status"),
		CoinNote:          text(data, "developer_notes", "coin_conversion"),
		GatewayNote:       text(data, "developer_notes", "gateway_payment"),
	}
	p.PaymentAmount, _ = Int64(member(data, "payment", "amount"))
	p.IsRequired, _ = member(data, "payment", "is_required").(bool)
	amount := [len(amountFields)]*int64{&p.Amount.Total, &p.Amount.BalanceUsed, &p.Amount.CoinUsed,
		&p.Amount.CoinValueUsed, &p.Amount.GatewayPayment}
	for i, name := range amountFields {
		v := member(data, "transaction", "amount", name)
		n, ok := Int64(v)
		if !ok {
			return nil, env, fmt.Errorf("%w: /data/transaction/amount/%s is %s", ErrCreatedData, name, jsonOf(v))
		}
		*amount[i] = n
	}
	created := Created{Status: env.Status, Message: env.Message, TransactionNumber: p.TransactionNumber,
		PartnerTrxID: p.PartnerTrxID, Amount: p.Amount}
	return p, env, CheckCreated(created, sent, UnknownFee)
}

// member follows keys through nested objects; nil where one is missing.
func member(v any, keys ...string) any {
	for _, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

// text is the string member at keys, "" if it is none.
func text(v any, keys ...string) string {
	s, _ := member(v, keys...).(string)
	return s
}

// jsonOf writes a decoded value back as JSON ("missing" when absent).
func jsonOf(v any) string {
	if v == nil {
		return "missing or null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// CreatedPlaces are the members of a created payment's answer (JSON
// pointers) that the rule CheckCreated's err breaks is about, for a
// report to mark them where it shows the answer; none for another error.
func CreatedPlaces(err error) []string {
	const amount = "/data/transaction/amount/"
	switch {
	case errors.Is(err, ErrCreatedAnswer):
		return []string{"/status", "/message"}
	case errors.Is(err, ErrTransactionNamed):
		return []string{"/data/transaction/transaction_number", "/data/transaction/partner_trx_id"}
	case errors.Is(err, errAmountCoinRate):
		return []string{amount + "coin_used", amount + "coin_value_used"}
	case errors.Is(err, errWalletOverTotal):
		return []string{amount + "total", amount + "balance_used", amount + "coin_value_used"}
	case errors.Is(err, errAmountSum), errors.Is(err, errAmountNegative):
		return []string{amount + "total", amount + "balance_used", amount + "coin_value_used", amount + "gateway_payment"}
	}
	return nil
}

// RuleOf names the rule a check's error breaks, without the figures of the
// case: its innermost error, the sentinel a check wraps. A judge that counts
// violations by rule (the load tester) keys them by it.
func RuleOf(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}
