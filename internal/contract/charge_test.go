package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	assert.False(t, IsGatewayMethod(7, internalMethodGateway, internalMethodType), "the internal method under another id")
	assert.True(t, IsGatewayMethod(8, internalMethodGateway, "VA"))
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
		{"coins before balance", api.Amount{Total: 6300, BalanceUsed: 4300, CoinUsed: 4000, CoinValueUsed: 2000}, 0, true, true, errBalanceNotFirst},
		{"coins although the balance covers", api.Amount{Total: 4000, BalanceUsed: 3000, CoinUsed: 2000, CoinValueUsed: 1000}, 0, true, true, errBalanceNotFirst},
		{"more than the total", api.Amount{Total: 4000, BalanceUsed: 4000, CoinUsed: 2, CoinValueUsed: 1}, 0, true, true, errWalletOverTotal},
		{"balance not asked", api.Amount{Total: 6300, BalanceUsed: 100, GatewayPayment: 6200}, 0, false, false, errBalanceNotAsked},
		{"beyond the wallet", api.Amount{Total: 9000, BalanceUsed: 5000, CoinUsed: 8000, CoinValueUsed: 4000}, 0, true, true, errBeyondWallet},
		{"coins not asked", api.Amount{Total: 6300, BalanceUsed: 5000, CoinUsed: 2600, CoinValueUsed: 1300}, 0, true, false, errCoinsNotAsked},
		{"a fee other than the method's", api.Amount{Total: 6300, GatewayPayment: 7000}, 2500, false, false, errAmountSum},
		{"coins at 1 a rupiah", api.Amount{Total: 6300, BalanceUsed: 5000, CoinUsed: 1300, CoinValueUsed: 1300}, 0, true, true, errAmountCoinRate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rd, err := CheckSplit(Exactly(w), tc.a, tc.fee, tc.useBalance, tc.useCoin)
			assert.Empty(t, rd.ID, "a wallet known exactly leaves no reading")
			if tc.want == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

// TestCheckSplitAfterAMixedPayment: after a payment that took balance 1500
// and left the rest to a gateway, the next payment may take the balance as
// if that payment had not taken it yet (the reading wallet-debited), but
// not more, nor less than the balance the reported amounts leave.
func TestCheckSplitAfterAMixedPayment(t *testing.T) {
	t.Parallel()
	r := Exactly(Wallet{Balance: 1500, Coins: 100}).After(api.Amount{Total: 6300, BalanceUsed: 1500, GatewayPayment: 4800})
	require.Equal(t, WalletRange{Reported: Wallet{Balance: 0, Coins: 100}, Unpaid: Wallet{Balance: 1500}}, r)
	rd, err := CheckSplit(r, api.Amount{Total: 6300, GatewayPayment: 6300}, 0, true, false)
	assert.NoError(t, err, "the balance was taken")
	assert.Empty(t, rd.ID)
	rd, err = CheckSplit(r, api.Amount{Total: 6300, BalanceUsed: 1500, GatewayPayment: 4800}, 0, true, false)
	assert.ErrorIs(t, err, errWalletNotAsReported, "the balance was not taken yet")
	assert.Equal(t, "wallet-debited", rd.ID)
	rd, err = CheckSplit(r, api.Amount{Total: 6300, BalanceUsed: 1600, GatewayPayment: 4700}, 0, true, false)
	assert.ErrorIs(t, err, errBeyondWallet, "more than the wallet may hold")
	assert.Empty(t, rd.ID)
	rd, err = CheckSplit(r, api.Amount{Total: 6300, BalanceUsed: 100, CoinUsed: 100, CoinValueUsed: 50, GatewayPayment: 6150}, 0, true, true)
	assert.ErrorIs(t, err, errWalletNotAsReported, "balance 100 of a balance the payment may not have taken, coins as reported")
	assert.Equal(t, "wallet-debited", rd.ID)
	rd, err = CheckSplit(r, api.Amount{Total: 6300, CoinUsed: 200, CoinValueUsed: 100, GatewayPayment: 6200}, 0, false, true)
	assert.ErrorIs(t, err, errBeyondWallet, "more coins than the wallet may hold")
	assert.Empty(t, rd.ID)
	rd, err = CheckSplit(Exactly(Wallet{Balance: -1500}), api.Amount{Total: 6300, GatewayPayment: 6300}, 0, true, false)
	assert.NoError(t, err, "a wallet below nothing gives nothing, and takes nothing more")
	assert.Empty(t, rd.ID)
}

func TestCheckWalletAsReported(t *testing.T) {
	t.Parallel()
	w := Wallet{Balance: 1000, Coins: 40}
	rd, err := CheckWalletAsReported(Exactly(w), w)
	assert.NoError(t, err)
	assert.Empty(t, rd.ID)
	rd, err = CheckWalletAsReported(Exactly(w), Wallet{})
	assert.ErrorIs(t, err, errWalletNotAsReported)
	assert.Empty(t, rd.ID, "a wallet known exactly: the document's rule")
	assert.Contains(t, err.Error(), "it holds balance 0 and 0 coins, but the payments reported leave balance 1000 and 40 coins")

	mixed := Exactly(w).After(api.Amount{Total: 6300, BalanceUsed: 1000, CoinUsed: 40, CoinValueUsed: 20, GatewayPayment: 5280})
	rd, err = CheckWalletAsReported(mixed, Wallet{})
	assert.NoError(t, err, "a mixed payment that took its wallet part when it was created")
	assert.Empty(t, rd.ID)
	for _, got := range []Wallet{w, {Balance: 1000}, {Balance: 400, Coins: 10}} {
		rd, err = CheckWalletAsReported(mixed, got)
		assert.ErrorIs(t, err, errWalletNotAsReported)
		assert.Equal(t, "wallet-debited", rd.ID, "%+v: within the range, the reading", got)
		assert.Contains(t, err.Error(), rd.Text)
	}
	for _, got := range []Wallet{{Balance: 1001, Coins: 40}, {Balance: -1}, {Coins: 41}} {
		rd, err = CheckWalletAsReported(mixed, got)
		assert.ErrorIs(t, err, errWalletNotAsReported)
		assert.Empty(t, rd.ID, "%+v: outside the range, the document's rule", got)
		assert.Contains(t, err.Error(), "the payments reported leave balance 0 to 1000 and 0 to 40 coins")
	}
	gateway := Exactly(w).After(api.Amount{Total: 6300, GatewayPayment: 6300})
	assert.Equal(t, Exactly(w), gateway, "a payment through a gateway alone takes nothing from the wallet")
}

// TestCheckSyncKeepsWallet: a wallet that provisioning its phone number
// again changed breaks §4.4's synchronization, said with its sentence; one
// it kept passes, and a mixed payment's range is still the reading's.
func TestCheckSyncKeepsWallet(t *testing.T) {
	t.Parallel()
	w := Wallet{Balance: 1000, Coins: 40}
	_, err := CheckSyncKeepsWallet(Exactly(w), w)
	assert.NoError(t, err)
	rd, err := CheckSyncKeepsWallet(Exactly(w), Wallet{})
	assert.ErrorIs(t, err, errSyncChangedWallet)
	assert.Empty(t, rd.ID)
	assert.Contains(t, err.Error(), sentenceSameCustomer)
	assert.Contains(t, err.Error(), "it holds balance 0 and 0 coins, and held balance 1000 and 40 coins before")
	mixed := Exactly(w).After(api.Amount{Total: 6300, BalanceUsed: 1000, CoinUsed: 40, CoinValueUsed: 20, GatewayPayment: 5280})
	rd, err = CheckSyncKeepsWallet(mixed, Wallet{Balance: 400})
	assert.ErrorIs(t, err, errWalletNotAsReported)
	assert.Equal(t, "wallet-debited", rd.ID)
}

func TestWalletRangeShown(t *testing.T) {
	t.Parallel()
	r := Exactly(Wallet{Balance: 1500, Coins: 100}).After(api.Amount{Total: 6300, BalanceUsed: 1500, CoinUsed: 100, CoinValueUsed: 50, GatewayPayment: 4750})
	assert.Equal(t, Exactly(Wallet{}), r.Shown(Wallet{}), "the parts were taken: they are not taken again")
	assert.Equal(t, r, r.Shown(Wallet{Balance: 1500, Coins: 100}), "not taken yet: they may still be")
	assert.Equal(t, WalletRange{Unpaid: Wallet{Balance: 1500}}, r.Shown(Wallet{Balance: 1500}))
	assert.Equal(t, r, r.Shown(Wallet{Balance: 1501}), "a wallet outside the range changes nothing")
}
