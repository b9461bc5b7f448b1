package probe

import (
	"fmt"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
)

// A real target's funded customer holds what its profile declares
// (min_balance and min_coins are what it holds at least, not a floor to
// keep), and often little: a partner's staging wallet. The probe plans its
// waves from what the wallet holds when it reads it, so that a modest
// wallet still puts payments in flight together, and says, when even that
// is not enough, what to fund; it never passes a case it could not judge.
//
// The probe spends at most half of what the wallet holds at its first
// wallet wave: the generated judge, after it, pays from the same customer.
// That half is shared between its two cases by what their cheapest wave
// costs (one payment with one partner_trx_id: a correct server creates
// one; a full wave of payments from one wallet, whose pairs in flight
// together are what a race needs), so that each can reach the waves a race
// needs (leastWaves) before either spends more. Each wave is
// given an even share of what its case has left for the waves it has
// left; a wave that cannot be planned within its share is planned within
// all its case has left (fewer waves, each able to race); when not even
// that pays for a wave, the wallet has run out for the case and it ends
// there (purse.short).

// spendShare is the part of the wallet the probe spends: 1/spendShare.
const spendShare = 2

// caseWeight is each wallet case's part of what the probe spends: the
// payments a correct server takes in one of its waves (one with one
// partner_trx_id, a full wave from one wallet).
func (w *world) caseWeight(name string) int64 {
	if name == caseOneWallet {
		return int64(w.opts.WaveSize)
	}
	return 1
}

// purse is what a case may still spend from the funded customer's
// wallet, and for how many waves.
type purse struct {
	left      contract.Wallet
	wavesLeft int
	// held is what the wallet held when the probe first read it; part is
	// the case's part of it (weight of totalWeight, of 1/spendShare).
	held       contract.Wallet
	weight, of int64
}

// purseFor is case name's purse, made from the wallet as read before the
// probe's first wave that pays from it.
func (w *world) purseFor(name string, before contract.Wallet) *purse {
	if w.purses == nil {
		w.purses, w.held = map[string]*purse{}, before
	}
	pu := w.purses[name]
	if pu == nil {
		total := w.caseWeight(caseOneID) + w.caseWeight(caseOneWallet)
		weight := w.caseWeight(name)
		part := func(v int64) int64 { return max(v, 0) / spendShare * weight / total }
		pu = &purse{held: w.held, weight: weight, of: total * spendShare, wavesLeft: max(w.opts.Waves, 1),
			left: contract.Wallet{Balance: part(w.held.Balance), Coins: part(w.held.Coins)}}
		w.purses[name] = pu
	}
	return pu
}

// share is what the next wave may spend: an even share of what is left.
func (pu *purse) share() contract.Wallet {
	n := int64(max(pu.wavesLeft, 1))
	return contract.Wallet{Balance: pu.left.Balance / n, Coins: pu.left.Coins / n}
}

// spend takes what a wave planned to take from the purse.
func (pu *purse) spend(cost contract.Wallet) {
	pu.left.Balance -= cost.Balance
	pu.left.Coins -= cost.Coins
	pu.wavesLeft--
}

// short says why no more waves can be paid for, and what to fund for the
// waves left, each costing need rupiah (in balance, or coins at two a
// rupiah).
func (pu *purse) short(need int64) string {
	value := pu.left.Balance + pu.left.Coins/contract.CoinsPerRupiah
	more := (need*int64(max(pu.wavesLeft, 1)) - value) * pu.of / pu.weight
	return fmt.Sprintf("the funded customer's wallet ran out: it held balance %s and %s coins when the probe began, of which the probe spends at most 1/%d "+
		"(the generated judge pays from it too), and a wave needs Rp %s; fund the customer (profile funded_customer) with Rp %s more "+
		"in balance (or twice that in coins) to run every wave",
		readable.Thousands(pu.held.Balance), readable.Thousands(pu.held.Coins), spendShare, readable.Thousands(need), readable.Thousands(max(more, need)))
}

// planPay chooses how payment pm is paid within limit, drawing among the
// ways that fit (balance only, coins only, balance then coins), and
// returns what it takes; ok is false when no way fits. Only a payer from
// a wallet is planned (planWave).
func (w *world) planPay(pm *payment, limit contract.Wallet) (cost contract.Wallet, ok bool) {
	price := pm.product.price
	type way struct {
		balance, coin bool
		cost          contract.Wallet
	}
	var fits []way
	if price <= limit.Balance {
		fits = append(fits, way{true, false, contract.Wallet{Balance: price}},
			way{true, true, contract.Wallet{Balance: price}}) // balance first: the coins are untouched
	}
	if coins := contract.CoinsFor(price); coins <= limit.Coins {
		fits = append(fits, way{false, true, contract.Wallet{Coins: coins}})
	}
	if len(fits) == 0 {
		return contract.Wallet{}, false
	}
	pick := fits[w.rng.IntN(len(fits))]
	pm.useBalance, pm.useCoin = pick.balance, pick.coin
	return pick.cost, true
}

// planWave draws n payments of payer p for case name that together fit
// within the wave's share of the case's purse, or, when the share does not
// pay for least of them, within what least payments of the cheapest
// product cost (fewer waves); short says why not even that fits (the
// wallet ran out).
// A payer through a gateway method is not limited.
func (w *world) planWave(name string, p *payer, before contract.Wallet, n, least int) (pms []payment, short string) {
	if !p.fromWallet() {
		pms = make([]payment, n)
		for i := range pms {
			pms[i] = w.drawPayment(p)
		}
		return pms, ""
	}
	pu := w.purseFor(name, before)
	// A share too small for the least a wave sends is raised to that
	// least, at the cheapest product's price: fewer waves, each able to
	// race, rather than waves that cannot.
	least64 := int64(least) * p.products[0].price
	share := pu.share()
	floor := contract.Wallet{Balance: min(pu.left.Balance, max(share.Balance, least64)), Coins: min(pu.left.Coins, max(share.Coins, contract.CoinsFor(least64)))}
	for _, try := range []struct {
		limit contract.Wallet
		n     int
	}{{share, n}, {floor, least}} { // at the floor, the least payments only: more waves
		pms, cost := w.drawWithin(p, try.limit, try.n, least)
		if len(pms) >= least {
			pu.spend(cost)
			return pms, ""
		}
	}
	return nil, pu.short(least64)
}

// drawWithin draws up to n payments of p that together take no more than
// limit, least of them at least when limit pays for that many of the
// cheapest product: each a product it may pay for, paid a way that fits
// what is left, and leaves room for the payments still needed.
func (w *world) drawWithin(p *payer, limit contract.Wallet, n, least int) ([]payment, contract.Wallet) {
	var pms []payment
	var cost contract.Wallet
	cheapest := p.products[0]
	for len(pms) < n {
		left := contract.Wallet{Balance: limit.Balance - cost.Balance, Coins: limit.Coins - cost.Coins}
		// What must stay for the payments still needed after this one.
		keep := int64(max(least-len(pms)-1, 0)) * cheapest.price
		pm := w.drawPayment(p)
		c, ok := w.planPay(&pm, left)
		if !ok || left.Balance+left.Coins/contract.CoinsPerRupiah-pm.product.price < keep {
			pm.product, pm.msisdn = cheapest, w.msisdn(cheapest)
			if c, ok = w.planPay(&pm, left); !ok {
				break
			}
		}
		cost.Balance += c.Balance
		cost.Coins += c.Coins
		pms = append(pms, pm)
	}
	return pms, cost
}
