package contract

import (
	"errors"
	"fmt"

	"github.com/partnercommerce/conformance/api"
)

// UnknownFee stands for the service fee of a payment method a judge does
// not know (GatewayPaymentDocumented).
const UnknownFee = -1

// remainderOf is what balance and coins leave of an amount object's total:
// section 4.6 rule 4, "Any remainder not covered by balance/coins is
// reported in transaction.amount.gateway_payment".
func remainderOf(a api.Amount) int64 { return a.Total - a.BalanceUsed - a.CoinValueUsed }

// GatewayPaymentDocumented reports whether gateway_payment reports the
// remainder as rule 4 of section 4.6 has it. How a gateway method's
// service fee (section 2.4) is charged is not written: inside total, on
// top of gateway_payment ("Rupiah to be paid through a payment gateway",
// section 2.7), or both. So gateway_payment is the remainder, or, when
// one remains, the remainder plus fee, the service_fee.amount of the
// method paid through; with UnknownFee any amount above the remainder is
// taken as a fee.
func GatewayPaymentDocumented(a api.Amount, fee int64) bool {
	rest := remainderOf(a)
	switch {
	case a.GatewayPayment == rest:
		return true
	case rest <= 0:
		return false
	case fee < 0:
		return a.GatewayPayment > rest
	}
	return a.GatewayPayment == rest+fee
}

// IsGatewayMethod reports whether a payment method of the list (section
// 4.5) is a gateway method, not the internal balance/coin method, which
// the list may include ("payment_method_id 0 denotes balance/coin payment
// and is not required to be in the list"): section 2.4 gives it id 0 and,
// in a payment, gateway SALDO and type COIN.
func IsGatewayMethod(id int64, gateway, paymentType string) bool {
	return id != InternalMethodID && (gateway != internalMethodGateway || paymentType != internalMethodType)
}

// The internal balance/coin method (section 2.4): "The value 0 means
// payment with balance/coins"; "returned in a payment with code BALANCE,
// gateway SALDO, type COIN".
const (
	InternalMethodID      = 0
	internalMethodCode    = "BALANCE"
	internalMethodGateway = "SALDO"
	internalMethodType    = "COIN"
)

// SentenceSplit is the sentence CheckSplit rests on.
const SentenceSplit = "§4.6: use_balance — \"Use balance first.\" use_coin — \"Use coins after balance.\" " +
	"Rule 1: balance is used first, then coins; §2.7: balance_used and coin_used are taken from the wallet, " +
	"so a payment takes balance only when asked, as much of the total as the balance covers, and never more than the wallet holds."

// The ways a payment can split the total over a wallet against section 4.6.
var (
	errBalanceNotAsked = errors.New("balance was taken although use_balance was false")
	errBeyondWallet    = errors.New("the payment took more than the wallet holds")
	errBalanceNotFirst = errors.New("balance is not used first")
)

// CheckSplit checks the amounts a of a payment sent with useBalance and
// useCoin through a method whose service fee is fee (UnknownFee when not
// known) against the wallet before it, as far as the payer's earlier
// payments let the judge know it (WalletRange): balance and coins within
// the total (CheckWalletWithinTotal), coins only when asked
// (CheckCoinsOnlyWhenAsked), the amount's arithmetic (checkAmountWithFee),
// balance only when asked, nothing beyond what the wallet may hold, and
// balance first (section 4.6 rule 1) from a balance in the range. A payment
// that took balance or coins the reported amounts say were taken already
// (the wallet held more, within the range) departs from the reading
// wallet-debited, which it returns with the departure.
func CheckSplit(before WalletRange, a api.Amount, fee int64, useBalance, useCoin bool) (Reading, error) {
	if err := CheckWalletWithinTotal(a); err != nil {
		return Reading{}, err
	}
	if !useCoin {
		if err := CheckCoinsOnlyWhenAsked(a); err != nil {
			return Reading{}, err
		}
	}
	if err := checkAmountWithFee(a, fee); err != nil {
		return Reading{}, fmt.Errorf("%w: total %d, balance_used %d, coin_used %d, coin_value_used %d, gateway_payment %d, the method's fee %d",
			err, a.Total, a.BalanceUsed, a.CoinUsed, a.CoinValueUsed, a.GatewayPayment, fee)
	}
	// A wallet below nothing gives nothing.
	least := Wallet{Balance: max(before.Reported.Balance, 0), Coins: max(before.Reported.Coins, 0)}
	most := Wallet{Balance: max(before.Most().Balance, 0), Coins: max(before.Most().Coins, 0)}
	switch {
	case !useBalance && a.BalanceUsed != 0:
		return Reading{}, fmt.Errorf("%w: balance_used %d (%s)", errBalanceNotAsked, a.BalanceUsed, SentenceSplit)
	case a.BalanceUsed > most.Balance || a.CoinUsed > most.Coins:
		return Reading{}, fmt.Errorf("%w: balance %d and %d coins taken from a wallet of %s (%s)",
			errBeyondWallet, a.BalanceUsed, a.CoinUsed, before, SentenceSplit)
	case useBalance && (a.BalanceUsed < min(least.Balance, a.Total) || a.BalanceUsed > min(most.Balance, a.Total)):
		return Reading{}, fmt.Errorf("%w: balance_used is %d with %s and total %d (%s)",
			errBalanceNotFirst, a.BalanceUsed, before, a.Total, SentenceSplit)
	case a.BalanceUsed > least.Balance || a.CoinUsed > least.Coins:
		rd := MustReading("wallet-debited")
		return rd, fmt.Errorf("%w: balance %d and %d coins taken, but the payments reported leave balance %d and %d coins (%s %s)",
			errWalletNotAsReported, a.BalanceUsed, a.CoinUsed, before.Reported.Balance, before.Reported.Coins, rd.Sentence, rd.Text)
	}
	return Reading{}, nil
}
