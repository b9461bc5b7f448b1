package reference

// coinsPerRupiah is the coin conversion: 2 coins = 1 rupiah (section 8).
const coinsPerRupiah = 2

// walletSplit is how a total is paid: from balance, from coins, and the
// remainder through a payment gateway. BalanceUsed + CoinValueUsed +
// Gateway = total.
type walletSplit struct {
	BalanceUsed   int64
	CoinUsed      int64
	CoinValueUsed int64
	Gateway       int64
}

// splitPolicy is the arithmetic of a split: coinsPerRupiah coins make one
// rupiah (2), and balance is taken before coins unless coinsFirst. The other
// switches only bend it for faults: allCoins takes every coin once coins are
// needed, ignoreUseCoin takes coins whatever use_coin says.
type splitPolicy struct {
	coinsPerRupiah int64
	coinsFirst     bool
	allCoins       bool
	ignoreUseCoin  bool
}

// splitPayment divides total between balance and coins under the
// document's rules: balance first; coins only for what balance leaves,
// taken in pairs (an odd last coin is never taken); the rest goes to the
// gateway. Negative inputs count as zero.
func splitPayment(total, balance, coins int64, useBalance, useCoin bool) walletSplit {
	return splitPolicy{coinsPerRupiah: coinsPerRupiah}.split(total, balance, coins, useBalance, useCoin)
}

func (p splitPolicy) split(total, balance, coins int64, useBalance, useCoin bool) walletSplit {
	total, balance, coins = max(total, 0), max(balance, 0), max(coins, 0)
	per := max(p.coinsPerRupiah, 1)
	var s walletSplit
	rem := total
	fromBalance := func() {
		if useBalance {
			s.BalanceUsed = min(balance, rem)
			rem -= s.BalanceUsed
		}
	}
	fromCoins := func() {
		if (useCoin || p.ignoreUseCoin) && rem > 0 {
			s.CoinValueUsed = min(coins/per, rem)
			if p.allCoins {
				s.CoinValueUsed = coins / per
			}
			s.CoinUsed = s.CoinValueUsed * per
			rem = max(rem-s.CoinValueUsed, 0)
		}
	}
	if p.coinsFirst {
		fromCoins()
		fromBalance()
	} else {
		fromBalance()
		fromCoins()
	}
	s.Gateway = rem
	return s
}
