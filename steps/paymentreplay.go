package steps

import (
	"context"
)

// The payments a generated sequence wrote, sent again by its replayed
// feature file with this run's partner_trx_ids.

// trxIDFor is the partner_trx_id of this run that stands for written, an
// id a generated sequence made up: the target may hold the original.
func (s *scenario) trxIDFor(written string) string {
	if s.trxIDs == nil {
		s.trxIDs = map[string]string{}
	}
	if _, ok := s.trxIDs[written]; !ok {
		s.trxIDs[written] = s.nextTrxID()
	}
	return s.trxIDs[written]
}

// payAsWritten sends the payment a generated sequence wrote. A created
// payment is the one the checks that follow are about, and what it
// reports taking leaves the payer's wallet (reportedWallet).
func (s *scenario) payAsWritten(ctx context.Context, actor string, productID, price int64, msisdn string, methodID int64, balance, coins, written string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	body := map[string]any{"product_id": productID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": balance == "on", "use_coin": coins == "on", "partner_trx_id": s.trxIDFor(written)}
	before := s.reportedWallet(actor)
	pm, err := s.pay(ctx, a, product{ID: productID, FinalPrice: price}, body)
	if err != nil || pm.res == nil {
		return err
	}
	pm.before = wallet{balance: before.Reported.Balance, coins: before.Reported.Coins}
	s.payment = pm
	if s.generated == nil {
		s.generated = map[string]*payment{}
	}
	s.generated[written] = pm
	s.setReported(actor, before.After(pm.res.Amount))
	return nil
}

// payAgainAsWritten sends a payment under a partner_trx_id the sequence
// used before.
func (s *scenario) payAgainAsWritten(ctx context.Context, actor, written string, productID int64, msisdn string, methodID int64, balance string) error {
	a, err := s.as(actor)
	if err != nil {
		return err
	}
	body := map[string]any{"product_id": productID, "msisdn": msisdn, "payment_method_id": methodID,
		"use_balance": balance == "on", "partner_trx_id": s.trxIDFor(written)}
	_, err = s.pay(ctx, a, product{ID: productID}, body)
	return err
}
