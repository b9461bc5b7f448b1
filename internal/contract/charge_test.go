package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/api"
)

func TestGatewayPaymentDocumented(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    api.Amount
		fee  int64
		want bool
	}{
		{"the remainder", api.Amount{Total: 11150, BalanceUsed: 150, GatewayPayment: 11000}, 2500, true},
		{"the remainder plus the fee", api.Amount{Total: 11150, GatewayPayment: 13650}, 2500, true},
		{"the remainder plus another fee", api.Amount{Total: 11150, GatewayPayment: 13000}, 2500, false},
		{"short of the remainder", api.Amount{Total: 11150, GatewayPayment: 11000}, 2500, false},
		{"a fee with nothing left to pay", api.Amount{Total: 6300, BalanceUsed: 6300, GatewayPayment: 2500}, 2500, false},
		{"fully covered", api.Amount{Total: 6300, BalanceUsed: 6000, CoinUsed: 600, CoinValueUsed: 300}, 0, true},
		{"an unknown fee above the remainder", api.Amount{Total: 11150, GatewayPayment: 12150}, UnknownFee, true},
		{"an unknown fee, nothing left to pay", api.Amount{Total: 6300, BalanceUsed: 6300, GatewayPayment: 1}, UnknownFee, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, GatewayPaymentDocumented(tc.a, tc.fee))
		})
	}
}

func TestIsGatewayMethod(t *testing.T) {
	t.Parallel()
	assert.True(t, IsGatewayMethod(1, "NUSAPAY", "QRIS"))
	assert.False(t, IsGatewayMethod(0, "SALDO", "COIN"), "the internal method listed")
	assert.False(t, IsGatewayMethod(0, "NUSAPAY", "VA"), "id 0 is the internal method whatever it is called")
	assert.False(t, IsGatewayMethod(7, InternalMethodGateway, InternalMethodType), "the internal method under another id")
	assert.True(t, IsGatewayMethod(8, InternalMethodGateway, "VA"))
}
