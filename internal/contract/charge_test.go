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

func TestCheckSplit(t *testing.T) {
	t.Parallel()
	w := Wallet{Balance: 5000, Coins: 4000}
	cases := []struct {
		name                string
		a                   api.Amount
		fee                 int64
		useBalance, useCoin bool
		want                error
	}{
		{"balance, then coins", api.Amount{Total: 6300, BalanceUsed: 5000, CoinUsed: 2600, CoinValueUsed: 1300}, 0, true, true, nil},
		{"balance, then a gateway with its fee", api.Amount{Total: 6300, BalanceUsed: 5000, GatewayPayment: 3800}, 2500, true, false, nil},
		{"coins before balance", api.Amount{Total: 6300, BalanceUsed: 4300, CoinUsed: 4000, CoinValueUsed: 2000}, 0, true, true, ErrBalanceNotFirst},
		{"coins although the balance covers", api.Amount{Total: 4000, BalanceUsed: 3000, CoinUsed: 2000, CoinValueUsed: 1000}, 0, true, true, ErrBalanceNotFirst},
		{"more than the total", api.Amount{Total: 4000, BalanceUsed: 4000, CoinUsed: 2, CoinValueUsed: 1}, 0, true, true, ErrWalletOverTotal},
		{"balance not asked", api.Amount{Total: 6300, BalanceUsed: 100, GatewayPayment: 6200}, 0, false, false, ErrBalanceNotAsked},
		{"beyond the wallet", api.Amount{Total: 9000, BalanceUsed: 5000, CoinUsed: 8000, CoinValueUsed: 4000}, 0, true, true, ErrBeyondWallet},
		{"coins not asked", api.Amount{Total: 6300, BalanceUsed: 5000, CoinUsed: 2600, CoinValueUsed: 1300}, 0, true, false, ErrCoinsNotAsked},
		{"a fee other than the method's", api.Amount{Total: 6300, GatewayPayment: 7000}, 2500, false, false, ErrAmountSum},
		{"coins at 1 a rupiah", api.Amount{Total: 6300, BalanceUsed: 5000, CoinUsed: 1300, CoinValueUsed: 1300}, 0, true, true, ErrAmountCoinRate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckSplit(w, tc.a, tc.fee, tc.useBalance, tc.useCoin)
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

func TestCheckWalletAsReported(t *testing.T) {
	t.Parallel()
	w := Wallet{Balance: 1000, Coins: 40}
	for _, gatewayDue := range []bool{false, true} {
		rd, err := CheckWalletAsReported(w, w, gatewayDue)
		assert.NoError(t, err)
		assert.Empty(t, rd.ID)
	}
	rd, err := CheckWalletAsReported(w, Wallet{}, false)
	assert.ErrorIs(t, err, ErrWalletNotAsReported)
	assert.Empty(t, rd.ID, "after payments fully covered by balance and coins, the document's rule")
	assert.Contains(t, err.Error(), "it holds balance 0 and 0 coins, but the payments reported leave balance 1000 and 40 coins")
	rd, err = CheckWalletAsReported(w, Wallet{}, true)
	assert.ErrorIs(t, err, ErrWalletNotAsReported)
	assert.Equal(t, "wallet-debited", rd.ID, "after a payment with a gateway remainder, the reading")
	assert.Contains(t, err.Error(), rd.Text)
}
