package contract

import "github.com/partnercommerce/conformance/api"

// UnknownFee stands for the service fee of a payment method a judge does
// not know (GatewayPaymentDocumented).
const UnknownFee = -1

// Remainder is what balance and coins leave of an amount object's total:
// section 4.6 rule 4, "Any remainder not covered by balance/coins is
// reported in transaction.amount.gateway_payment".
func Remainder(a api.Amount) int64 { return a.Total - a.BalanceUsed - a.CoinValueUsed }

// GatewayPaymentDocumented reports whether gateway_payment reports the
// remainder as rule 4 of section 4.6 has it. How a gateway method's
// service fee (section 2.4) is charged is not written: inside total, on
// top of gateway_payment ("Rupiah to be paid through a payment gateway",
// section 2.7), or both. So gateway_payment is the remainder, or, when
// one remains, the remainder plus fee, the service_fee.amount of the
// method paid through; with UnknownFee any amount above the remainder is
// taken as a fee.
func GatewayPaymentDocumented(a api.Amount, fee int64) bool {
	rest := Remainder(a)
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
	return id != InternalMethodID && (gateway != InternalMethodGateway || paymentType != InternalMethodType)
}

// The internal balance/coin method (section 2.4): "The value 0 means
// payment with balance/coins"; "returned in a payment with code BALANCE,
// gateway SALDO, type COIN".
const (
	InternalMethodID      = 0
	InternalMethodCode    = "BALANCE"
	InternalMethodGateway = "SALDO"
	InternalMethodType    = "COIN"
)
