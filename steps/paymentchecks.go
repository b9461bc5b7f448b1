package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/internal/contract"
)

// The checks of a created (or refused) payment's answer: its statuses,
// its transaction number, what it charged and how balance, coins and the
// gateway share the total (section 4.6), each through internal/contract.

// transactionStatuses are the transaction_status values of section 3.
var transactionStatuses = []string{"WAITING_PAYMENT", "PROCESSING", "SUCCESS", "FAILED"}

// paid checks a fully covered payment: PAID ("Payment finished") with a
// documented transaction status; PROCESSING is the observed combination, a
// reading, since transitions are not shown (a server may settle at once).
func (s *scenario) paid() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if pm.res.Amount.GatewayPayment != 0 {
		return s.notJudged(fmt.Sprintf("profile funded_customer: the payment was not fully covered by balance and coins (gateway_payment %d); fund the customer", pm.res.Amount.GatewayPayment))
	}
	if pm.res.PaymentStatus != "PAID" || !slices.Contains(transactionStatuses, pm.res.TransactionStatus) {
		return s.failure(pm.ex, secPaid, fmt.Sprintf("payment_status PAID and a transaction status of %v", transactionStatuses),
			"payment_status %s and status %s", pm.res.PaymentStatus, pm.res.TransactionStatus)
	}
	if pm.res.TransactionStatus != "PROCESSING" {
		return s.reading(contract.MustReading("paid-processing"), s.failure(pm.ex, secObserved, "transaction status PROCESSING", "status %s", pm.res.TransactionStatus))
	}
	return nil
}

func (s *scenario) numberAndEcho() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	want := fmt.Sprint(pm.body["partner_trx_id"])
	if err := contract.CheckTransactionNamed(pm.res.TransactionNumber, pm.res.PartnerTrxID, want); err != nil {
		return s.failure(pm.ex, secTransaction, fmt.Sprintf("a transaction_number with slashes and partner_trx_id %q", want), "%v", err)
	}
	return nil
}

// chargedFinalPrice checks amount.total against the final_price the payer's
// own catalog shows (reading charged-final-price). The document does not say
// whether a gateway method's service fee is part of the total, so through a
// gateway either the final price or the final price plus that method's
// service_fee.amount is accepted.
func (s *scenario) chargedFinalPrice(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	c, err := s.catalog(ctx, pm.by.partner)
	if err != nil {
		return err
	}
	return s.reading(contract.MustReading("charged-final-price"), s.checkCharged(pm, c))
}

func (s *scenario) checkCharged(pm *payment, c catalogRead) error {
	for _, p := range c.products {
		if p.ID != pm.product.ID {
			continue
		}
		total := pm.res.Amount.Total
		want := fmt.Sprintf("amount.total %d, the final_price %s's catalog shows for product %d", p.FinalPrice, pm.by.partner.label, p.ID)
		ok := total == p.FinalPrice
		if pm.via != nil {
			want += fmt.Sprintf(", or %d, that price plus the service_fee.amount %d of payment method %d", p.FinalPrice+pm.via.ServiceFee, pm.via.ServiceFee, pm.via.ID)
			ok = ok || total == p.FinalPrice+pm.via.ServiceFee
		}
		if !ok {
			return s.failure(pm.ex, secChargedPrice, want, "amount.total is %d (base_price is %d)", total, p.BasePrice)
		}
		return nil
	}
	return s.failure(c.ex, secChargedPrice, fmt.Sprintf("product %d in the catalog of %s", pm.product.ID, pm.by.partner.label), "the catalog does not list it")
}

func (s *scenario) noGateway() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	var problem error
	switch {
	case a.GatewayPayment != 0 || pm.res.IsRequired || pm.res.PaymentAmount != 0:
		problem = s.failure(pm.ex, secIsRequired, "gateway_payment 0, payment.is_required false and payment.amount 0",
			"gateway_payment %d, is_required %v, payment.amount %d", a.GatewayPayment, pm.res.IsRequired, pm.res.PaymentAmount)
	case a.BalanceUsed+a.CoinValueUsed != a.Total:
		problem = s.failure(pm.ex, secRemainder, fmt.Sprintf("balance_used + coin_value_used = total %d", a.Total),
			"balance_used %d + coin_value_used %d", a.BalanceUsed, a.CoinValueUsed)
	}
	return s.reading(contract.MustReading("no-remainder-fields"), problem)
}

func (s *scenario) developerNotes() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if strings.TrimSpace(pm.res.CoinNote) == "" || strings.TrimSpace(pm.res.GatewayNote) == "" {
		return s.failure(pm.ex, secDeveloperNotes, "non-empty developer_notes.coin_conversion and developer_notes.gateway_payment",
			"coin_conversion %q, gateway_payment %q", pm.res.CoinNote, pm.res.GatewayNote)
	}
	return nil
}

func (s *scenario) balanceFirst() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	if pm.before.balance < a.Total {
		return s.notJudged(fmt.Sprintf("profile funded_customer: its balance %d does not cover the cheapest product (%d); fund the customer", pm.before.balance, a.Total))
	}
	if a.BalanceUsed != a.Total || a.CoinUsed != 0 || a.CoinValueUsed != 0 || a.GatewayPayment != 0 {
		return s.failure(pm.ex, secBalanceFirst,
			fmt.Sprintf("balance_used %d (the total; the balance before was %d), coin_used 0, coin_value_used 0, gateway_payment 0", a.Total, pm.before.balance),
			"balance_used %d, coin_used %d, coin_value_used %d, gateway_payment %d", a.BalanceUsed, a.CoinUsed, a.CoinValueUsed, a.GatewayPayment)
	}
	return nil
}

// splitArithmetic checks a payment of a short balance: all of it is used
// and coins cover the rest (reading short-balance-all-used, which rule 1's
// "Balance is used first" does not fix).
func (s *scenario) splitArithmetic() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a, b := pm.res.Amount, pm.before.balance
	rest := a.Total - b
	if a.BalanceUsed != b || a.CoinValueUsed != rest || a.CoinUsed != contract.CoinsFor(rest) || a.GatewayPayment != 0 {
		return s.reading(contract.MustReading("short-balance-all-used"), s.failure(pm.ex, secBalanceFirst+" "+secCoinValue,
			fmt.Sprintf("balance_used %d (the whole balance), coin_value_used %d, coin_used %d, gateway_payment 0 for a total of %d", b, rest, contract.CoinsFor(rest), a.Total),
			"balance_used %d, coin_value_used %d, coin_used %d, gateway_payment %d", a.BalanceUsed, a.CoinValueUsed, a.CoinUsed, a.GatewayPayment))
	}
	return nil
}

func (s *scenario) coinsOnly() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	if a.CoinValueUsed <= 0 || a.CoinUsed != contract.CoinsFor(a.CoinValueUsed) {
		return s.failure(pm.ex, secCoinValue, "coin_value_used above 0 and coin_used = 2 × coin_value_used",
			"coin_used %d, coin_value_used %d", a.CoinUsed, a.CoinValueUsed)
	}
	if a.BalanceUsed != 0 || a.CoinValueUsed+a.GatewayPayment != a.Total {
		return s.reading(contract.MustReading("coins-only-no-balance"), s.failure(pm.ex, secCoinValue,
			fmt.Sprintf("balance_used 0 and coin_value_used + gateway_payment = total %d", a.Total),
			"balance_used %d, coin_value_used %d, gateway_payment %d", a.BalanceUsed, a.CoinValueUsed, a.GatewayPayment))
	}
	return nil
}

// noCoinsTaken checks a payment sent with use_coin false at document level
// (contract.CheckCoinsOnlyWhenAsked).
func (s *scenario) noCoinsTaken() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if err := contract.CheckCoinsOnlyWhenAsked(pm.res.Amount); err != nil {
		return s.failure(pm.ex, contract.SentenceCoinsOnlyWhenAsked, "coin_used 0 and coin_value_used 0", "%v", err)
	}
	return nil
}

// walletWithinTotal checks at document level that balance and coins paid
// no more than the total (contract.CheckWalletWithinTotal).
func (s *scenario) walletWithinTotal() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	if err := contract.CheckWalletWithinTotal(pm.res.Amount); err != nil {
		return s.failure(pm.ex, contract.SentenceWalletWithinTotal, "balance_used + coin_value_used <= total", "%v", err)
	}
	return nil
}

func (s *scenario) remainderDue() error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	a := pm.res.Amount
	want := a.Total - a.BalanceUsed - a.CoinValueUsed
	wants := fmt.Sprintf("gateway_payment = total − balance_used − coin_value_used = %d > 0", want)
	fee := int64(0)
	if pm.via != nil && pm.via.ServiceFee > 0 {
		fee = pm.via.ServiceFee
		wants += fmt.Sprintf(" (or %d, plus the service_fee.amount of payment method %d)", want+fee, pm.via.ID)
	}
	documented := contract.GatewayPaymentDocumented(a, fee)
	if !documented || want <= 0 || !pm.res.IsRequired || pm.res.PaymentAmount <= 0 {
		return s.failure(pm.ex, secRemainder+" "+secIsRequired, wants+", payment.is_required true, payment.amount > 0",
			"gateway_payment %d, is_required %v, payment.amount %d", a.GatewayPayment, pm.res.IsRequired, pm.res.PaymentAmount)
	}
	return nil
}

func (s *scenario) refusedWithAnyMessage(code int) error {
	ex, env, err := s.lastEnvelope()
	if err != nil {
		return err
	}
	if ex.Status != code || strings.TrimSpace(env.Message) == "" {
		return s.failure(ex, secUnprocessable, fmt.Sprintf("status %d and a message", code),
			"got status %d and the message %q", ex.Status, env.Message)
	}
	return nil
}

func (s *scenario) notRefusedAsReuse() error {
	if s.attempt == nil {
		return errors.New("no payment was sent before this check")
	}
	if s.attempt.ex.Status == http.StatusConflict {
		return s.failure(s.attempt.ex, contract.MessageRow(contract.MsgDuplicate), "no 409: the partner_trx_id is new",
			"a partner_trx_id never used before was refused as already used")
	}
	return nil
}

// takesAsSplit checks the amounts of the payment just created against the
// wallet the payer held before it (contract.CheckSplit).
func (s *scenario) takesAsSplit(ctx context.Context, actor string) error {
	pm := s.attempt
	if pm == nil || pm.res == nil || pm.by.actor != actor {
		return fmt.Errorf("no payment of %s was created before this check", actor)
	}
	fee := int64(0)
	if id, _ := pm.body["payment_method_id"].(int64); id != contract.InternalMethodID {
		ms, err := s.methods(ctx, pm.by)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.ID == id && contract.IsGatewayMethod(m.ID, m.Gateway, m.Type) {
				fee = m.ServiceFee
			}
		}
	}
	useBalance, _ := pm.body["use_balance"].(bool)
	useCoin, _ := pm.body["use_coin"].(bool)
	rd, err := contract.CheckSplit(pm.known, pm.res.Amount, fee, useBalance, useCoin)
	if err == nil {
		return nil
	}
	return s.gradedBy(rd, s.failure(pm.ex, contract.SentenceSplit, "balance first when asked, then coins when asked, the rest through the gateway", "%v", err))
}

// coinsCoverRest grades the coins of the payment just created, sent with
// use_coin, against the wallet the payer held before it by the reading
// generated-coins-cover-remainder (contract.CheckCoinsCoverRemainder), as
// the generated model grades them.
func (s *scenario) coinsCoverRest() error {
	pm := s.attempt
	if pm == nil || pm.res == nil {
		return errors.New("no payment was created before this check")
	}
	if useCoin, _ := pm.body["use_coin"].(bool); !useCoin {
		return errors.New("the payment checked was sent without use_coin")
	}
	rd := contract.MustReading("generated-coins-cover-remainder")
	if err := contract.CheckCoinsCoverRemainder(pm.known, pm.res.Amount); err != nil {
		return s.reading(rd, s.failure(pm.ex, rd.Sentence, "coins worth min(coins / 2, what balance left) rupiah", "%v", err))
	}
	s.applied(rd)
	return nil
}
