package contract

import (
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
// (CheckTransactionNamed), and the amount's arithmetic (CheckAmountWithFee).
// Every judge calls it on every payment it sees created. It allocates
// nothing when the answer passes (the load tester calls it per answer).
func CheckCreated(c Created, sent string, fee int64) error {
	if !c.Status || c.Message != MsgCreated {
		return fmt.Errorf("%w: status %v and the message %q (%s)", ErrCreatedAnswer, c.Status, c.Message, SentenceCreated)
	}
	if err := CheckTransactionNamed(c.TransactionNumber, c.PartnerTrxID, sent); err != nil {
		return err
	}
	if err := CheckAmountWithFee(c.Amount, fee); err != nil {
		a := c.Amount
		return fmt.Errorf("%w: total %d, balance_used %d, coin_used %d, coin_value_used %d, gateway_payment %d",
			err, a.Total, a.BalanceUsed, a.CoinUsed, a.CoinValueUsed, a.GatewayPayment)
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
