package contract

import (
	"errors"
	"fmt"

	"github.com/partnercommerce/conformance/api"
)

// CoinsPerRupiah is the coin conversion: 2 coins = 1 rupiah (sections 2.3,
// 2.7 and 8). Money is integers throughout: rupiah and coins, never floats.
const CoinsPerRupiah = 2

// CoinValue is the rupiah value of coins (coin.available_value, coins / 2;
// an odd coin is worth nothing).
func CoinValue(coins int64) int64 { return coins / CoinsPerRupiah }

// coinValueDocumented reports whether value is the rupiah value of coins as
// section 2.3 fixes it: coins / 2, an odd coin rounded either way (that it
// rounds down is the reading coin-value-rounds-down).
func coinValueDocumented(coins, value int64) bool {
	return value == CoinValue(coins) || coins%CoinsPerRupiah != 0 && value == CoinValue(coins)+1
}

// errCoinValue is a coin.available_value that is not the value of the
// coins.
var errCoinValue = errors.New("coin.available_value is not the value of the coins")

// CheckCoinValue checks coin.available_value against coin.available
// (section 2.3: coins / 2; an odd coin rounded either way, see
// coinValueDocumented).
func CheckCoinValue(coins, value int64) error {
	if !coinValueDocumented(coins, value) {
		return fmt.Errorf("%w: %d for %d coins, not %d (§2.3: coins / 2)", errCoinValue, value, coins, CoinValue(coins))
	}
	return nil
}

// errCoinValueRounded is an odd number of coins valued at the rupiah above
// half of them.
var errCoinValueRounded = errors.New("coin.available_value rounds an odd coin up")

// CheckCoinValueRoundsDown checks that an odd coin is worth nothing: the
// reading coin-value-rounds-down (CheckCoinValue allows either rounding),
// so a judge grades its error as that reading.
func CheckCoinValueRoundsDown(coins, value int64) error {
	if value != CoinValue(coins) {
		return fmt.Errorf("%w: %d for %d coins, not %d", errCoinValueRounded, value, coins, CoinValue(coins))
	}
	return nil
}

// CoinsFor is the number of coins worth rupiah.
func CoinsFor(rupiah int64) int64 { return rupiah * CoinsPerRupiah }

// SentenceAmount is the sentence the arithmetic of an amount object
// rests on.
const SentenceAmount = "§2.7: total — \"Total in rupiah.\" coin_value_used — \"Rupiah value of the coins taken (2 coins = 1 rupiah).\" " +
	"gateway_payment — \"Rupiah to be paid through a payment gateway.\" §4.6 rule 4: \"Any remainder not covered by balance/coins " +
	"is reported in transaction.amount.gateway_payment\": no part is negative, and balance_used + coin_value_used + gateway_payment " +
	"is the total (a gateway method's fee may come on top of gateway_payment)."

// The ways an amount object (section 2.7) can break its arithmetic.
var (
	errAmountNegative = errors.New("amount has a negative part")
	errAmountSum      = errors.New("amount parts do not add up to total (gateway_payment is the remainder, or the remainder plus a fee)")
	errAmountCoinRate = errors.New("coin_used is not twice coin_value_used")
)

// checkAmount verifies the arithmetic of an amount object (section 2.7 and
// section 4.6 rule 4) of a payment through a method whose fee the judge
// does not know: checkAmountWithFee with UnknownFee.
func checkAmount(a api.Amount) error { return checkAmountWithFee(a, UnknownFee) }

// checkAmountWithFee verifies the arithmetic of an amount object of a
// payment through a method whose service fee is fee (UnknownFee when not
// known): nothing is negative; balance and coins pay at most the total
// (CheckWalletWithinTotal); gateway_payment reports what balance_used and
// coin_value_used leave of the total (GatewayPaymentDocumented, the fee
// allowed on top); and coin_used is worth coin_value_used at 2 coins a
// rupiah.
func checkAmountWithFee(a api.Amount, fee int64) error {
	switch {
	case a.Total < 0 || a.BalanceUsed < 0 || a.CoinUsed < 0 || a.CoinValueUsed < 0 || a.GatewayPayment < 0:
		return errAmountNegative
	case a.BalanceUsed+a.CoinValueUsed > a.Total:
		return CheckWalletWithinTotal(a)
	case !GatewayPaymentDocumented(a, fee):
		return errAmountSum
	case a.CoinUsed != CoinsFor(a.CoinValueUsed):
		return errAmountCoinRate
	}
	return nil
}
