package contract

import (
	"errors"
	"fmt"

	"github.com/partnercommerce/conformance/api"
)

// WalletRange is what a judge knows of a customer's wallet after the
// payments it made since a profile showed it: the wallet their reported
// amounts leave (Reported), and the balance and coins of the mixed payments
// among them, those that take from the wallet and leave a remainder to a
// gateway, that the wallet may still hold (Unpaid). Section 2.7 gives
// balance_used as "Rupiah taken from balance" but not when a payment whose
// gateway part is still unpaid takes it: when it is created, or when the
// gateway part is paid. So the wallet holds at least Reported and at most
// Reported + Unpaid, balance and coins alike.
type WalletRange struct {
	Reported, Unpaid Wallet
}

// Exactly is the range of a wallet a profile has just shown.
func Exactly(w Wallet) WalletRange { return WalletRange{Reported: w} }

// Most is the most the wallet may hold.
func (r WalletRange) Most() Wallet {
	return Wallet{Balance: r.Reported.Balance + r.Unpaid.Balance, Coins: r.Reported.Coins + r.Unpaid.Coins}
}

// Holds reports whether the wallet may be w.
func (r WalletRange) Holds(w Wallet) bool {
	most := r.Most()
	return r.Reported.Balance <= w.Balance && w.Balance <= most.Balance && r.Reported.Coins <= w.Coins && w.Coins <= most.Coins
}

// isMixed reports whether a payment with the amounts a takes from the wallet
// and leaves a remainder to a gateway.
func isMixed(a api.Amount) bool { return a.GatewayPayment > 0 && (a.BalanceUsed > 0 || a.CoinUsed > 0) }

// After is the range after a payment created with the amounts a: it takes
// what it reports taking, and a mixed payment may take it only when its
// gateway part is paid.
func (r WalletRange) After(a api.Amount) WalletRange {
	r.Reported.Balance -= a.BalanceUsed
	r.Reported.Coins -= a.CoinUsed
	if isMixed(a) {
		r.Unpaid.Balance += a.BalanceUsed
		r.Unpaid.Coins += a.CoinUsed
	}
	return r
}

// Shown is the range once a profile has shown the wallet w, within r: the
// wallet is w, and the mixed payments may still take what w holds above
// Reported (no more: what one of them took it does not take again). A w
// outside r leaves r as it is (CheckWalletAsReported fails it).
func (r WalletRange) Shown(w Wallet) WalletRange {
	if !r.Holds(w) {
		return r
	}
	return WalletRange{Reported: r.Reported, Unpaid: Wallet{Balance: w.Balance - r.Reported.Balance, Coins: w.Coins - r.Reported.Coins}}
}

// String says the range in words.
func (r WalletRange) String() string {
	if r.Unpaid == (Wallet{}) {
		return fmt.Sprintf("balance %d and %d coins", r.Reported.Balance, r.Reported.Coins)
	}
	most := r.Most()
	return fmt.Sprintf("balance %s and %s coins", span(r.Reported.Balance, most.Balance), span(r.Reported.Coins, most.Coins))
}

// span writes lo, or "lo to hi".
func span(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// SentenceWalletAsReported is the sentence CheckWalletAsReported rests on.
const SentenceWalletAsReported = "§2.7: balance_used — \"Rupiah taken from balance.\" coin_used — \"Coins taken.\" " +
	"§3: a payment fully covered by balance/coins is PAID, \"Payment finished.\" " +
	"Every debit is reported in a transaction's amounts, so a wallet holds what it held less what its payments reported taking; " +
	"a payment that leaves a remainder to a gateway takes its balance and coins when it is created or when the gateway part is paid " +
	"(the document does not say which), so until then the wallet may still hold them, and never more."

// errWalletNotAsReported is a wallet that does not hold what the payments
// reported leave.
var errWalletNotAsReported = errors.New("the wallet does not hold what the payments reported leave")

// CheckWalletAsReported compares the wallet a profile shows (got) with the
// range the payments since it was last read leave it in (WalletRange).
// Exactly what their reported amounts leave passes. A wallet above that but
// within what the mixed payments still unpaid may hold departs from the
// reading wallet-debited, which it returns with the departure; anything
// else breaks the document's rule (no reading).
func CheckWalletAsReported(r WalletRange, got Wallet) (Reading, error) {
	if got == r.Reported {
		return Reading{}, nil
	}
	if r.Holds(got) {
		rd := MustReading("wallet-debited")
		return rd, fmt.Errorf("%w: it holds balance %d and %d coins, but the payments reported leave balance %d and %d coins (%s %s)",
			errWalletNotAsReported, got.Balance, got.Coins, r.Reported.Balance, r.Reported.Coins, rd.Sentence, rd.Text)
	}
	return Reading{}, fmt.Errorf("%w: it holds balance %d and %d coins, but the payments reported leave %s (%s)",
		errWalletNotAsReported, got.Balance, got.Coins, r, SentenceWalletAsReported)
}

// errSyncChangedWallet is a wallet that provisioning its phone number
// again changed.
var errSyncChangedWallet = errors.New("provisioning the phone number again changed the wallet")

// CheckSyncKeepsWallet compares the wallet a profile shows right after its
// phone number was provisioned again (got) with the range r a profile read
// just before it left: provisioning a phone number the partner already has
// synchronizes the existing account (§4.4), so it keeps its wallet. A
// wallet CheckWalletAsReported fails is the provisioning's fault, said
// with its sentence; a reading's departure is CheckWalletAsReported's.
func CheckSyncKeepsWallet(r WalletRange, got Wallet) (Reading, error) {
	rd, err := CheckWalletAsReported(r, got)
	if err == nil || rd.ID != "" {
		return rd, err
	}
	return Reading{}, fmt.Errorf("%w (%s): it holds balance %d and %d coins, and held %s before",
		errSyncChangedWallet, sentenceSameCustomer, got.Balance, got.Coins, r)
}

// CheckTakenWithin checks what payments made at once from one wallet took
// together (taken: the sum of their balance_used and coin_used) against the
// wallet before them: no more than it may have held, so that it never goes
// below zero, whichever order the server took them in (section 4.6 and
// SentenceSplit: never more than the wallet holds).
func CheckTakenWithin(before WalletRange, taken Wallet) error {
	most := before.Most()
	if taken.Balance > max(most.Balance, 0) || taken.Coins > max(most.Coins, 0) {
		return fmt.Errorf("%w: together the payments took balance %d and %d coins from a wallet of %s (%s)",
			errBeyondWallet, taken.Balance, taken.Coins, before, SentenceSplit)
	}
	return nil
}
