package reference

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplitPayment(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                  string
		total, balance, coins int64
		useBalance, useCoin   bool
		want                  walletSplit
	}{
		{"balance covers all, coins untouched", 10000, 50000, 1000, true, true, walletSplit{BalanceUsed: 10000}},
		{"balance then coins", 10000, 4000, 20000, true, true, walletSplit{BalanceUsed: 4000, CoinUsed: 12000, CoinValueUsed: 6000}},
		{"balance, coins, gateway", 10000, 4000, 2000, true, true, walletSplit{BalanceUsed: 4000, CoinUsed: 2000, CoinValueUsed: 1000, Gateway: 5000}},
		{"odd coin never taken", 10000, 0, 5, false, true, walletSplit{CoinUsed: 4, CoinValueUsed: 2, Gateway: 9998}},
		{"one coin is worth nothing", 100, 0, 1, false, true, walletSplit{Gateway: 100}},
		{"coins only", 10000, 99999, 30000, false, true, walletSplit{CoinUsed: 20000, CoinValueUsed: 10000}},
		{"balance only", 10000, 3000, 99999, true, false, walletSplit{BalanceUsed: 3000, Gateway: 7000}},
		{"neither", 10000, 99999, 99999, false, false, walletSplit{Gateway: 10000}},
		{"zero total", 0, 100, 100, true, true, walletSplit{}},
		{"negatives count as zero", 100, -5, -7, true, true, walletSplit{Gateway: 100}},
		{"negative total", -100, 5, 7, true, true, walletSplit{}},
		{"split customer", 11550, 1500, 10_000_000, true, true, walletSplit{BalanceUsed: 1500, CoinUsed: 20100, CoinValueUsed: 10050}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := splitPayment(tc.total, tc.balance, tc.coins, tc.useBalance, tc.useCoin)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSplitPolicyFaults(t *testing.T) {
	t.Parallel()
	coinsFirst := splitPolicy{coinsPerRupiah: 2, coinsFirst: true}.split(10000, 50000, 4000, true, true)
	assert.Equal(t, walletSplit{BalanceUsed: 8000, CoinUsed: 4000, CoinValueUsed: 2000}, coinsFirst)
	notHalved := splitPolicy{coinsPerRupiah: 1}.split(10000, 0, 4000, true, true)
	assert.Equal(t, walletSplit{CoinUsed: 4000, CoinValueUsed: 4000, Gateway: 6000}, notHalved)
}

// FuzzPaymentSplit checks the invariants of the split for any input.
func FuzzPaymentSplit(f *testing.F) {
	f.Add(int64(11550), int64(1500), int64(10_000_000), true, true)
	f.Add(int64(10000), int64(50000), int64(1000), true, true)
	f.Add(int64(10000), int64(0), int64(5), false, true)
	f.Add(int64(0), int64(0), int64(0), false, false)
	f.Fuzz(func(t *testing.T, total, balance, coins int64, useBalance, useCoin bool) {
		if total < 0 || balance < 0 || coins < 0 {
			t.Skip()
		}
		s := splitPayment(total, balance, coins, useBalance, useCoin)
		if s.BalanceUsed < 0 || s.CoinUsed < 0 || s.CoinValueUsed < 0 || s.Gateway < 0 {
			t.Fatalf("negative part: %+v", s)
		}
		if s.BalanceUsed+s.CoinValueUsed+s.Gateway != total {
			t.Fatalf("parts %+v do not add up to %d", s, total)
		}
		if s.CoinUsed != 2*s.CoinValueUsed {
			t.Fatalf("coin_used %d is not twice coin_value_used %d", s.CoinUsed, s.CoinValueUsed)
		}
		if s.BalanceUsed > balance || s.CoinUsed > coins {
			t.Fatalf("took more than held: %+v from balance %d coins %d", s, balance, coins)
		}
		if (!useBalance && s.BalanceUsed != 0) || (!useCoin && s.CoinUsed != 0) {
			t.Fatalf("used a source not enabled: %+v", s)
		}
		if s.CoinUsed > 0 && useBalance && s.BalanceUsed != balance {
			t.Fatalf("coins used before the balance ran out: %+v with balance %d", s, balance)
		}
		if s.Gateway > 0 && useCoin && coins/2 > s.CoinValueUsed {
			t.Fatalf("gateway remainder while usable coins are left: %+v coins %d", s, coins)
		}
		if s.Gateway > 0 && useBalance && s.BalanceUsed < balance {
			t.Fatalf("gateway remainder while balance is left: %+v balance %d", s, balance)
		}
	})
}
