package steps

import (
	"context"
	"fmt"

	"github.com/partnercommerce/conformance/internal/contract"
)

// The checks of the payer's wallet after a payment: it lost exactly what
// the payment reported taking, once, and nothing after a refusal.

// expectWallet reads the payer's wallet again and checks that it dropped by
// exactly what pm reported taking, graded as contract.CheckWalletAsReported
// says: by the reading wallet-debited when pm is a mixed payment that may
// not have taken its wallet part yet.
func (s *scenario) expectWallet(ctx context.Context, pm *payment) error {
	after, err := s.walletOf(ctx, pm.by)
	if err != nil {
		return err
	}
	left := pm.known.After(pm.res.Amount)
	rd, err := contract.CheckWalletAsReported(left, contract.Wallet{Balance: after.balance, Coins: after.coins})
	if err == nil {
		return nil
	}
	section := contract.SentenceWalletAsReported
	if rd.ID != "" {
		section = rd.Sentence + " Reading: " + rd.Text
	}
	return s.gradedBy(rd, s.walletFailure(pm.by, pm.ex, section,
		fmt.Sprintf("%s → %s", pm.known, left),
		"the profile then shows balance %d and coins %d (the payment above is the one checked)", after.balance, after.coins))
}

// refusalTookNothing reads the payer's wallet again after refused requests
// and checks at document level (contract.CheckRefusalTakesNothing) that it
// is the wallet before them: pm's wallet less what pm itself took, if it was
// created.
func (s *scenario) refusalTookNothing(ctx context.Context, pm *payment, section string) error {
	after, err := s.walletOf(ctx, pm.by)
	if err != nil {
		return err
	}
	before := contract.Wallet{Balance: pm.before.balance, Coins: pm.before.coins}
	if pm.res != nil {
		before.Balance -= pm.res.Amount.BalanceUsed
		before.Coins -= pm.res.Amount.CoinUsed
	}
	if err := contract.CheckRefusalTakesNothing(before, contract.Wallet{Balance: after.balance, Coins: after.coins}); err != nil {
		return s.walletFailure(pm.by, pm.ex, section, fmt.Sprintf("balance %d and coins %d", before.Balance, before.Coins), "%v", err)
	}
	return nil
}

func (s *scenario) debitedAsReported(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	return s.expectWallet(ctx, pm)
}

func (s *scenario) debitedOnce(ctx context.Context) error {
	pm, err := s.created()
	if err != nil {
		return err
	}
	return s.refusalTookNothing(ctx, pm, secNothingAfter409)
}

func (s *scenario) nothingTaken(ctx context.Context) error {
	pm := s.attempt
	if pm == nil {
		return fmt.Errorf("no payment was attempted before this check")
	}
	return s.refusalTookNothing(ctx, pm, secNothingAfter422)
}
