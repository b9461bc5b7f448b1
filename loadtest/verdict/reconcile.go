package verdict

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// The invariants a run checks after the load.
const (
	InvContract    = "response-contract" // every response honours the contract
	InvUniqueID    = "unique-success"    // no partner_trx_id is created twice
	InvIdempotency = "idempotency-wave"  // a wave of N: at most one created, a 409 only after a use of the id (one same refusal: a reading)
	InvLookup      = "status-lookup"     // every created id is found, as the transaction created
	InvLost        = "lost-write"        // an acknowledged (created) id is still found after the run
	InvResurrected = "resurrected"       // an id refused, or never delivered, is not found created after the run
	InvBalance     = "balance"           // balance change = debits of created payments
	InvCoins       = "coins"             // coin change = coins of created payments
)

// maxDetails bounds how many violations of one invariant are listed.
const maxDetails = 25

// Violation is one broken invariant.
type Violation struct {
	Invariant string `json:"invariant"`
	Detail    string `json:"detail"`
}

// AccountCheck is the reconciliation of one account: the observed change
// of balance and coins (debits are positive) against the bounds the ledger
// allows. Min is what the created payments debited; Max adds the most the
// uncertain requests could have debited.
type AccountCheck struct {
	Account       string `json:"account"`
	BalanceChange int64  `json:"balance_change"`
	BalanceMin    int64  `json:"balance_min"`
	BalanceMax    int64  `json:"balance_max"`
	CoinChange    int64  `json:"coin_change"`
	CoinMin       int64  `json:"coin_min"`
	CoinMax       int64  `json:"coin_max"`
	Created       int    `json:"created"`
	Uncertain     int    `json:"uncertain_ids"`
	Skipped       string `json:"skipped,omitempty"`
	OK            bool   `json:"ok"`
}

// Reconciliation is the verdict of the invariants on a ledger.
type Reconciliation struct {
	Requests     int `json:"create_requests"`
	IDs          int `json:"ids"`
	Created      int `json:"created_ids"`
	Duplicates   int `json:"duplicate_debits"` // Σ over ids of (times created − 1)
	Uncertain    int `json:"uncertain_requests"`
	UncertainIDs int `json:"uncertain_ids"` // ids never created with an uncertain request
	LookedUp     int `json:"looked_up"`
	// Resolved counts the ids no answer said "created" (every answer lost,
	// or a retry answered 409) that payment status found: created once.
	// NeverCreated counts those it answered "Transaksi tidak ditemukan.".
	Resolved     int `json:"resolved_ids,omitempty"`
	NeverCreated int `json:"never_created_ids,omitempty"`
	Waves        int `json:"waves,omitempty"`

	Accounts []AccountCheck `json:"accounts"`
	// Violations lists at most maxDetails violations per invariant.
	Violations []Violation `json:"violations"`
	// Counts counts violations per invariant, listed or not.
	Counts map[string]int `json:"counts,omitempty"`
	// Warnings lists at most maxDetails checks per reading that failed but
	// rest on a reading (internal/contract): a warning, a failure only in a
	// strict run (Verdicts.Strict).
	Warnings []contract.Warning `json:"warnings,omitempty"`
	// WarningCounts counts them per reading, listed or not.
	WarningCounts map[string]int `json:"warning_counts,omitempty"`
	// Entries is the per-id list behind the verdict (violations.jsonl):
	// every id lost, resurrected, created twice, of a broken idempotency
	// wave, not reconciled or uncertain, and every account that does not
	// reconcile; in full, up to maxEntries. Every id or account a violation
	// of Counts names has its entry, and the verdict's classes count them.
	Entries []Entry `json:"-"`
}

// maxEntries bounds Reconciliation.Entries.
const maxEntries = 1 << 20

// Entry is one id (or account) of a run's verdict: its class, what
// happened, when it was sent, and, for an uncertain id, how payment status
// resolved it.
type Entry struct {
	Class      string    `json:"class"`
	ID         string    `json:"id"`
	Account    string    `json:"account,omitempty"`
	Detail     string    `json:"detail"`
	At         time.Time `json:"at,omitzero"`
	Resolution string    `json:"resolution,omitempty"`
	// Fault is the fault (from 1, in the run's order) under way when the
	// id was sent or, for an id sent between faults, the next one; 0 when
	// none ran at or after it.
	Fault int `json:"fault,omitempty"`
	// Status is what the look-up of the id (payment status), or the read
	// of the account's wallet (the profile) after the run, answered; 0
	// when none answered.
	Status int `json:"status,omitempty"`
	// Kind says what was found within the class, when the class holds
	// several findings (the Kind* constants): how a wallet is off, why an
	// id was not reconciled.
	Kind string `json:"kind,omitempty"`
	// Cause is the class of the finding this entry is a consequence of
	// (ClassDuplicate: an id created twice broke its wave, left its
	// look-up naming another transaction, and took its wallet past what
	// the answers said; CauseGateway: a gateway answered instead of the
	// API); "" when the entry is a finding of its own. Findings fold
	// consequences under their cause.
	Cause string `json:"cause,omitempty"`
}

// CauseGateway is the Cause of the entries a gateway's answer explains:
// a payment a gateway answered, whose fate is not known; a look-up a
// gateway answered.
const CauseGateway = "gateway"

// Kinds of Entry: what was found within a class.
const (
	// Wallet mismatches: the wallet fell by more than the created
	// payments debited (over), by less (under), or rose (rose); over, and
	// explained: by exactly what the 409 answers to a reused id would
	// debit (KindOverReuse), by what the throttled payments could have
	// (KindOverThrottled), by what the refused ones could have
	// (KindOverRefused).
	KindOver          = "over"
	KindOverReuse     = "over-reuse"
	KindOverThrottled = "over-throttled"
	KindOverRefused   = "over-refused"
	KindUnder         = "under"
	KindRose          = "rose"
	// Not reconciled: not looked up (the reconciliation stopped or ran
	// out of time), the look-up failed (no answer), payment status
	// answered another status than 200, its record had no amount or named
	// another transaction, or an account's wallet was not read.
	KindNotLookedUp      = "not-looked-up"
	KindLookupFailed     = "lookup-failed"
	KindStatusCode       = "status-code"
	KindNoAmount         = "no-amount"
	KindOtherTransaction = "other-transaction"
	KindWalletNotRead    = "wallet-not-read"
	// Idempotency waves: more than one created (a duplicate's
	// consequence), or a 409 before any use of the id.
	KindWaveCreatedTwice = "created-twice"
	KindWaveEarly409     = "early-409"
	// Resurrected: refused every time (KindRefused), or throttled and then
	// found used (KindThrottled: a throttled request was processed).
	KindRefused   = "refused"
	KindThrottled = "throttled"
)

// Classes of Entry, in the order a failed run's verdict leads with them.
const (
	ClassLost           = "lost-write"         // acknowledged, then not found
	ClassResurrected    = "resurrected"        // refused or never delivered, then found
	ClassDuplicate      = "duplicate-debit"    // created more than once
	ClassWalletMismatch = "wallet-mismatch"    // an account's balance or coins do not reconcile
	ClassUncertain      = "uncertain"          // no definite answer; Resolution says what payment status found
	ClassNotReconciled  = "not-reconciled"     // created, but not looked up (or the look-up failed or differed)
	ClassContract       = "contract-violation" // an answer broke the contract
	ClassIdempotency    = "idempotency-wave"   // a wave of one id got more than one created, or mixed refusals
)

// Resolutions of an uncertain id.
const (
	ResolvedCreated      = "created"       // payment status found it
	ResolvedNeverCreated = "never-created" // payment status answered "Transaksi tidak ditemukan."
	Unresolved           = "unresolved"    // no look-up, or it failed
)

func (r *Reconciliation) entry(e Entry) {
	if len(r.Entries) < maxEntries {
		r.Entries = append(r.Entries, e)
	}
}

// Passed reports whether no invariant was violated.
func (r *Reconciliation) Passed() bool { return len(r.Violations) == 0 }

// ViolationCount is the number of violations, listed or not.
func (r *Reconciliation) ViolationCount() int {
	n := 0
	for _, k := range r.Counts {
		n += k
	}
	return n
}

// Omitted is the number of violations of inv left out of Violations.
func (r *Reconciliation) Omitted(inv string) int { return max(0, r.Counts[inv]-maxDetails) }

// WarningCount is the number of warnings, listed or not.
func (r *Reconciliation) WarningCount() int {
	n := 0
	for _, k := range r.WarningCounts {
		n += k
	}
	return n
}

// warn records that a check resting on reading rd failed, with detail.
func (r *Reconciliation) warn(rd contract.Reading, detail string) {
	if r.WarningCounts == nil {
		r.WarningCounts = map[string]int{}
	}
	r.WarningCounts[rd.ID]++
	if r.WarningCounts[rd.ID] <= maxDetails {
		r.Warnings = append(r.Warnings, rd.Warn(detail))
	}
}

func (r *Reconciliation) add(inv, format string, args ...any) {
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[inv]++
	if r.Counts[inv] > maxDetails {
		return
	}
	r.Violations = append(r.Violations, Violation{Invariant: inv, Detail: fmt.Sprintf(format, args...)})
}

// idGroup gathers the requests of one partner_trx_id.
type idGroup struct {
	id        string
	account   string
	wave      int
	first     *record.Payment // first created request, by sequence
	created   int
	duplicate int
	refused   int
	refusals  map[string]int // distinct refusals ("HTTP 422: message") and their counts
	uncertain int
	// notDelivered counts requests that never reached the server.
	notDelivered int
	// throttled counts requests refused for their rate (a 429, or a 503
	// with Retry-After): refusals, not processed.
	throttled int
	// gateway counts requests a gateway answered instead of the API:
	// uncertain, as a request without an answer is.
	gateway  int
	maxBal   int64
	maxCoins int64
	// What the refusals could have debited, had they: the throttled ones
	// and the other refusals (but 409s), at most.
	throttledBal, throttledCoins int64
	refusedBal, refusedCoins     int64
	// extraBal and extraCoins are what the created answers after the
	// first say they debited: a duplicate's extra debits.
	extraBal, extraCoins int64
	at                   time.Time      // the first send
	resolved             *record.Lookup // the payment status look-up made after the run
	lost                 bool           // a retry scenario's attempt got no answer
	n                    int
}

// ledger is a ledger read one entry at a time (a record.Run, from its
// files), so that a long run's ledger need not be held in memory.
type ledger interface {
	EachPayment(fn func(*record.Payment) error) error
}

// reconcile checks the ledger read from src and the account snapshots.
// final is true when the ledger holds every shard of the run (a merge, or
// a single-shard run): only then are accounts shared between shards
// reconciled. A long ledger is grouped bucket by bucket (spillEach), so
// that reconciliation holds at most most entries of it at once. It fails
// only when the ledger cannot be read.
func reconcile(src ledger, snapshots []record.AccountSnapshot, final bool, most int) (*Reconciliation, error) {
	r := &Reconciliation{}
	perAccount := map[string]*accountBounds{}
	spilled, err := spillEach(src.EachPayment, ledgerSpill, most, func(ps []record.Payment) { r.judgeIDs(ps, perAccount) }, 0)
	if err != nil {
		return nil, err
	}
	if spilled { // judged bucket by bucket: list the ids in order
		sort.SliceStable(r.Entries, func(i, j int) bool { return r.Entries[i].ID < r.Entries[j].ID })
	}
	accounts := combineSnapshots(snapshots)
	for k := range accounts {
		if perAccount[k] == nil {
			perAccount[k] = &accountBounds{}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(perAccount)) {
		r.checkAccount(k, perAccount[k], accounts[k], final)
	}
	return r, nil
}

// judgeIDs groups ps, which hold every request of their ids, by id, and
// judges each id in the order of the ids, adding to its account's bounds.
func (r *Reconciliation) judgeIDs(ps []record.Payment, perAccount map[string]*accountBounds) {
	groups := map[string]*idGroup{}
	var order []string
	for i := range ps {
		p := &ps[i]
		r.Requests++
		g := groups[p.ID]
		if g == nil {
			g = &idGroup{id: p.ID, account: p.Account, wave: p.Wave}
			groups[p.ID] = g
			order = append(order, p.ID)
		}
		g.add(r, p)
	}
	sort.Strings(order)
	r.IDs += len(order)
	for _, id := range order {
		g := groups[id]
		b := perAccount[g.account]
		if b == nil {
			b = &accountBounds{}
			perAccount[g.account] = b
		}
		r.boundID(id, g, b)
	}
}

// add counts one request of the id: its answer, and what a lost answer may
// have debited.
func (g *idGroup) add(r *Reconciliation, p *record.Payment) {
	g.n++
	if g.at.IsZero() || (!p.At.IsZero() && p.At.Before(g.at)) {
		g.at = p.At
	}
	if p.Lookup != nil && (g.resolved == nil || p.Outcome == record.OutcomeCreated) {
		g.resolved = p.Lookup
	}
	switch p.Outcome {
	case record.OutcomeCreated:
		g.created++
		if p.Amount != nil {
			g.extraBal += p.Amount.BalanceUsed
			g.extraCoins += p.Amount.CoinUsed
		}
		if g.first == nil || p.Seq < g.first.Seq {
			g.first = p
		}
	case record.OutcomeDuplicate:
		g.duplicate++
	case record.OutcomeNotDelivered:
		g.notDelivered++
	case record.OutcomeUncertain, record.OutcomeGateway:
		g.lost = g.lost || p.Attempt > 0
		g.uncertain++
		if p.Outcome == record.OutcomeGateway {
			g.gateway++
		} else {
			r.Uncertain++
		}
		g.maxBal = max(g.maxBal, p.MaxBalance)
		g.maxCoins = max(g.maxCoins, p.MaxCoins)
	case record.OutcomeThrottled:
		g.throttled++
		g.throttledBal += p.MaxBalance
		g.throttledCoins += p.MaxCoins
		fallthrough
	default:
		if p.Outcome != record.OutcomeThrottled {
			g.refusedBal += p.MaxBalance
			g.refusedCoins += p.MaxCoins
		}
		g.refused++
		if g.refusals == nil {
			g.refusals = map[string]int{}
		}
		g.refusals[fmt.Sprintf("HTTP %d: %s", p.Code, p.Message)]++
	}
}

// accountBounds are what the payments of one account may have debited: at
// least what the created ones did, at most that plus the uncertain ones;
// and what would explain a wallet off those bounds.
type accountBounds struct {
	balMin, balMax, coinMin, coinMax int64
	created, uncertain               int
	retried                          []retriedID // created ids whose first answer was lost
	// What the created answers after each id's first debited, as they
	// say (duplicates); what the 409 answers to its created ids would
	// have, each taking the id's amount again; at most what its throttled
	// and its other refused payments could have.
	extra, reuse, throttled, refused debits
	// lost is what the created payments that payment status then did not
	// find (lost writes) debited, as their answers say.
	lost debits
}

// debits are amounts of balance and coins.
type debits struct{ bal, coins int64 }

func (d *debits) add(bal, coins int64) { d.bal += bal; d.coins += coins }

// debit adds one payment's debit to the bounds: the contract allows one per
// id, whatever else the server did.
func (b *accountBounds) debit(a *record.Amount) {
	b.balMin += a.BalanceUsed
	b.balMax += a.BalanceUsed
	b.coinMin += a.CoinUsed
	b.coinMax += a.CoinUsed
}

// boundID judges the requests of one id (duplicates, waves, resurrection)
// and adds what it debited, or may have, to its account's bounds.
func (r *Reconciliation) boundID(id string, g *idGroup, b *accountBounds) {
	if g.created > 1 {
		r.Duplicates += g.created - 1
		r.add(InvUniqueID, "%s was created %d times", id, g.created)
		r.entry(Entry{Class: ClassDuplicate, ID: id, Account: g.account, At: g.first.At, Detail: fmt.Sprintf("created %d times", g.created)})
		if a := g.first.Amount; a != nil {
			b.extra.add(g.extraBal-a.BalanceUsed, g.extraCoins-a.CoinUsed)
		}
	}
	if g.wave > 0 {
		r.Waves++
		checkWave(r, g)
	}
	b.throttled.add(g.throttledBal, g.throttledCoins)
	b.refused.add(g.refusedBal, g.refusedCoins)
	switch {
	case g.created > 0:
		r.Created++
		b.created++
		a := g.first.Amount
		if a == nil {
			r.add(InvLookup, "%s: created without an amount in the ledger", id)
			r.entry(Entry{Class: ClassNotReconciled, Kind: KindNoAmount, ID: id, Account: g.account, At: g.first.At, Detail: "created without an amount in the ledger"})
			break
		}
		b.debit(a)
		b.reuse.add(int64(g.duplicate)*a.BalanceUsed, int64(g.duplicate)*a.CoinUsed)
		if checkLookup(r, g.first, g.created > 1) {
			b.lost.add(a.BalanceUsed, a.CoinUsed)
		}
	case resolvedCreated(g.resolved) && g.uncertain == 0 && (g.duplicate == 0 || g.throttled > 0):
		// Refused, or never delivered, every time (or throttled, and then
		// found used by a retry): yet it exists (and debited what payment
		// status says).
		r.Created++
		b.created++
		a := g.resolved.Amount
		b.debit(a)
		kind := KindRefused
		if g.throttled > 0 {
			kind = KindThrottled
		}
		r.add(InvResurrected, "%s: answered %s, yet payment status finds it created", id, g.answers())
		r.entry(Entry{Class: ClassResurrected, Kind: kind, ID: id, Account: g.account, At: g.at, Status: g.resolved.Code, Detail: "answered " + g.answers() + ", then found created"})
	case resolvedCreated(g.resolved):
		// Every answer was lost (or a retry found the id used):
		// payment status says it was created, with these amounts.
		r.Created++
		r.Resolved++
		b.created++
		a := g.resolved.Amount
		b.debit(a)
		b.reuse.add(int64(g.duplicate)*a.BalanceUsed, int64(g.duplicate)*a.CoinUsed)
	case resolvedMissing(g.resolved):
		r.NeverCreated++
	case g.uncertain > 0:
		r.UncertainIDs++
		b.uncertain++
		b.balMax += g.maxBal
		b.coinMax += g.maxCoins
	}
	if g.uncertain > 0 && g.created == 0 {
		r.uncertainEntry(g)
	}
	if g.lost && (g.created > 0 || resolvedCreated(g.resolved)) {
		var a *record.Amount
		if g.first != nil {
			a = g.first.Amount
		} else {
			a = g.resolved.Amount
		}
		if a != nil {
			b.retried = append(b.retried, retriedID{id, a.BalanceUsed, a.CoinUsed, g.n - 1})
		}
	}
}

// uncertainEntry lists g, an id without a created answer some of whose
// requests got no answer (or a gateway's), with how payment status
// resolved it.
func (r *Reconciliation) uncertainEntry(g *idGroup) {
	res := Unresolved
	switch {
	case resolvedCreated(g.resolved):
		res = ResolvedCreated
	case resolvedMissing(g.resolved):
		res = ResolvedNeverCreated
	}
	e := Entry{Class: ClassUncertain, ID: g.id, Account: g.account, At: g.at, Resolution: res,
		Detail: fmt.Sprintf("%d of %d requests without an answer; payment status: %s", g.uncertain, g.n, res)}
	if g.gateway > 0 {
		e.Cause = CauseGateway
		e.Detail = fmt.Sprintf("%d of %d requests answered by a gateway, not the API; payment status: %s", g.gateway, g.n, res)
	}
	r.entry(e)
}

// accountWallets are an account's wallet snapshots combined over shards.
type accountWallets struct {
	before, after *record.Wallet
	shared        bool
	err           string
}

// combineSnapshots combines snapshots per account: the earliest "before"
// and the latest "after" enclose every shard's payments with that account.
func combineSnapshots(snapshots []record.AccountSnapshot) map[string]*accountWallets {
	accounts := map[string]*accountWallets{}
	for _, s := range snapshots {
		c := accounts[s.Account]
		if c == nil {
			c = &accountWallets{}
			accounts[s.Account] = c
		}
		c.shared = c.shared || s.Shared
		if s.Error != "" && c.err == "" {
			c.err = s.Error
		}
		if s.Before != nil && (c.before == nil || s.Before.At.Before(c.before.At)) {
			c.before = s.Before
		}
		if s.After != nil && (c.after == nil || s.After.At.After(c.after.At)) {
			c.after = s.After
		}
	}
	return accounts
}

// checkAccount compares account k's wallet change with its bounds b, or
// says why it was skipped; final is a merged run's reconciliation, which
// checks accounts shared by shards.
func (r *Reconciliation) checkAccount(k string, b *accountBounds, c *accountWallets, final bool) {
	ac := AccountCheck{Account: k, BalanceMin: b.balMin, BalanceMax: b.balMax,
		CoinMin: b.coinMin, CoinMax: b.coinMax, Created: b.created, Uncertain: b.uncertain}
	switch {
	case c == nil:
		ac.Skipped = "no wallet snapshot"
	case c.shared && !final:
		ac.Skipped = "shared with other shards; reconciled by `loadtest merge`"
	case c.err != "" || c.before == nil || c.after == nil:
		ac.Skipped = "wallet not read: " + c.err
	}
	if ac.Skipped != "" {
		if b.created > 0 && c != nil && (!c.shared || final) {
			// Debits happened but cannot be checked: that is a failure to reconcile.
			r.add(InvBalance, "%s: cannot reconcile %d created payments: %s", k, b.created, ac.Skipped)
			r.entry(Entry{Class: ClassNotReconciled, Kind: KindWalletNotRead, ID: k, Account: k, Detail: fmt.Sprintf("cannot reconcile %d created payments: %s", b.created, ac.Skipped)})
		} else {
			ac.OK = true
		}
		r.Accounts = append(r.Accounts, ac)
		return
	}
	ac.BalanceChange = c.before.Balance - c.after.Balance
	ac.CoinChange = c.before.Coins - c.after.Coins
	ac.OK = true
	if ac.BalanceChange < ac.BalanceMin || ac.BalanceChange > ac.BalanceMax {
		ac.OK = false
		r.add(InvBalance, "%s: balance fell by %d; created payments debited %d%s%s",
			k, ac.BalanceChange, ac.BalanceMin, upTo(ac.BalanceMax, ac.BalanceMin, b.uncertain),
			createdTwice(ac.BalanceChange-ac.BalanceMax, b.retried, func(x retriedID) int64 { return x.balance }))
	}
	if ac.CoinChange < ac.CoinMin || ac.CoinChange > ac.CoinMax {
		ac.OK = false
		r.add(InvCoins, "%s: coins fell by %d; created payments used %d%s%s",
			k, ac.CoinChange, ac.CoinMin, upTo(ac.CoinMax, ac.CoinMin, b.uncertain),
			createdTwice(ac.CoinChange-ac.CoinMax, b.retried, func(x retriedID) int64 { return x.coins }))
	}
	if !ac.OK {
		e := Entry{Class: ClassWalletMismatch, ID: k, Account: k, Status: 200, Detail: fmt.Sprintf("balance fell by %s rupiah, expected %s; coins fell by %s, expected %s",
			readable.Thousands(ac.BalanceChange), readable.Span(ac.BalanceMin, ac.BalanceMax), readable.Thousands(ac.CoinChange), readable.Span(ac.CoinMin, ac.CoinMax))}
		e.Kind, e.Cause = walletKind(ac, b)
		r.entry(e)
	}
	r.Accounts = append(r.Accounts, ac)
}

// walletKind says how the wallet of ac is off its bounds b, and what
// explains it: the extra creations of its reused ids, exactly (a
// consequence of the duplicate, Cause ClassDuplicate); the 409 answers to
// its reused ids, each taking the id's amount again; its throttled
// payments, or its refused ones, as far as they could have taken; under,
// the debits of its lost writes, which the server forgot with them (a
// consequence of the lost writes, Cause ClassLost).
func walletKind(ac AccountCheck, b *accountBounds) (kind, cause string) {
	over := ac.BalanceChange >= ac.BalanceMin && ac.CoinChange >= ac.CoinMin // every part at least what was debited
	forgot := b.lost != (debits{}) && ac.BalanceChange >= ac.BalanceMin-b.lost.bal && ac.CoinChange >= ac.CoinMin-b.lost.coins &&
		ac.BalanceChange <= ac.BalanceMax && ac.CoinChange <= ac.CoinMax
	within := func(d debits, exactly bool) bool {
		lo := debits{ac.BalanceMin + d.bal, ac.CoinMin + d.coins}
		if exactly {
			return ac.BalanceChange >= lo.bal && ac.BalanceChange <= ac.BalanceMax+d.bal && ac.CoinChange >= lo.coins && ac.CoinChange <= ac.CoinMax+d.coins
		}
		return ac.BalanceChange <= ac.BalanceMax+d.bal && ac.CoinChange <= ac.CoinMax+d.coins
	}
	switch {
	case over && b.extra != (debits{}) && within(b.extra, true):
		return KindOver, ClassDuplicate
	case over && b.reuse != (debits{}) && within(b.reuse, true):
		return KindOverReuse, ""
	case over && b.throttled != (debits{}) && within(b.throttled, false):
		return KindOverThrottled, ""
	case over && b.refused != (debits{}) && within(b.refused, false):
		return KindOverRefused, ""
	case over:
		return KindOver, ""
	case forgot:
		return KindUnder, ClassLost
	case ac.BalanceChange < 0 || ac.CoinChange < 0:
		return KindRose, ""
	}
	return KindUnder, ""
}

func upTo(hi, lo int64, uncertain int) string {
	if hi == lo {
		return ""
	}
	return fmt.Sprintf(" (up to %d with %d uncertain ids)", hi, uncertain)
}

// refusalCounts lists the refusals of an id, each with how many times it
// came, in order.
func (g *idGroup) refusalCounts() []string {
	var parts []string
	for k, c := range g.refusals {
		parts = append(parts, fmt.Sprintf("%d × %s", c, k))
	}
	sort.Strings(parts)
	return parts
}

// answers lists the answers of an id that was never created: its
// refusals and the sends that never reached the server.
func (g *idGroup) answers() string {
	parts := g.refusalCounts()
	if g.notDelivered > 0 {
		parts = append(parts, fmt.Sprintf("%d × not delivered", g.notDelivered))
	}
	return strings.Join(parts, ", ")
}

// readingWave is the reading that a wave's refusals are one refusal.
var readingWave = contract.MustReading("wave-refusals-alike")

// checkWave verifies an idempotency wave of N requests with one
// partner_trx_id: at most one is created, and a 409 follows a use of the id
// (the document's rules); every other answer is one and the same refusal
// (the reading wave-refusals-alike: the document lets a server refuse a
// payment it cannot process, for example when the wallet cannot cover the
// price, and does not say that it refuses the same request alike).
// Uncertain requests may be anything; the debit of each success is checked
// on the wallets. The rules are contract.CheckWave's, as the concurrency
// probe's.
func checkWave(r *Reconciliation, g *idGroup) {
	n := g.wave
	ok := g.n == n && contract.CheckWave(contract.Wave{Created: g.created, Duplicate: g.duplicate, Refused: g.refused, Uncertain: g.uncertain}) == nil
	switch {
	case !ok:
		got := fmt.Sprintf("wave of %d got %d created, %d 409, %d refused %v, %d uncertain", g.n, g.created, g.duplicate, g.refused, g.refusalCounts(), g.uncertain)
		r.add(InvIdempotency, "%s: %s (want at most 1 created, and a 409 only after a use of the id)", g.id, got)
		e := Entry{Class: ClassIdempotency, ID: g.id, Account: g.account, At: g.at, Detail: got, Kind: KindWaveEarly409}
		if g.created > 1 {
			e.Kind, e.Cause = KindWaveCreatedTwice, ClassDuplicate // the duplicate's wave
		}
		r.entry(e)
	case len(g.refusals) > 1:
		r.warn(readingWave, fmt.Sprintf("%s: wave of %d refused in %d ways: %v", g.id, g.n, len(g.refusals), g.refusalCounts()))
	}
}

// checkLookup verifies that a created payment was found through payment
// status as the transaction created (contract.CheckRecordNamed, a failure),
// with the product and amounts it was created with (the reading
// status-record-amounts: a warning). An id created more than once
// (duplicate) names several transactions: what its look-up finds is the
// duplicate's consequence.
func checkLookup(r *Reconciliation, p *record.Payment, duplicate bool) (lost bool) {
	l := p.Lookup
	var detail, kind string
	defer func() {
		if detail != "" {
			e := Entry{Class: ClassNotReconciled, Kind: kind, ID: p.ID, Account: p.Account, At: p.At, Detail: detail}
			if l != nil {
				e.Status = l.Code
			}
			switch {
			case duplicate && (kind == KindOtherTransaction || kind == KindStatusCode):
				e.Cause = ClassDuplicate
			case l != nil && l.Gateway:
				e.Cause = CauseGateway
			}
			r.entry(e)
		}
	}()
	if l == nil {
		detail, kind = "created but not looked up", KindNotLookedUp
		r.add(InvLookup, "%s: %s", p.ID, detail)
		return false
	}
	r.LookedUp++
	switch {
	case l.Error != "":
		detail, kind = "status lookup failed: "+l.Error, KindLookupFailed
	case l.Code == 404:
		r.add(InvLost, "%s: created (transaction %s), then payment status answers HTTP 404 %q", p.ID, p.TransactionNumber, l.Message)
		r.entry(Entry{Class: ClassLost, ID: p.ID, Account: p.Account, At: p.At, Status: l.Code,
			Detail: fmt.Sprintf("created (transaction %s), then payment status answers HTTP 404 %q", p.TransactionNumber, l.Message)})
		return true
	case l.Code != 200:
		detail, kind = fmt.Sprintf("created but status answers HTTP %d %q", l.Code, l.Message), KindStatusCode
	case l.Amount == nil:
		detail, kind = "status record without an amount", KindNoAmount
	default:
		detail, kind = checkRecord(r, p, l), KindOtherTransaction
	}
	if detail != "" {
		r.add(InvLookup, "%s: %s", p.ID, detail)
	}
	return false
}

// readingRecordAmounts is the reading the product and amounts of a status
// record are graded by.
var readingRecordAmounts = contract.MustReading("status-record-amounts")

// checkRecord compares the status record l of a created payment p with the
// answer that created it: another transaction is a failure (its detail is
// returned), another product or amount a warning of readingRecordAmounts. A
// look-up recorded without a product (a ledger written before look-ups
// kept it) has its amounts compared only.
func checkRecord(r *Reconciliation, p *record.Payment, l *record.Lookup) string {
	created := contract.Record{PartnerTrxID: p.ID, TransactionNumber: p.TransactionNumber, ProductID: p.ProductID, Amount: *p.Amount}
	got := contract.Record{PartnerTrxID: p.ID, TransactionNumber: l.TransactionNumber, ProductID: l.ProductID, Amount: *l.Amount}
	if got.ProductID == 0 {
		got.ProductID = created.ProductID
	}
	if err := contract.CheckRecordNamed(created, got); err != nil {
		return err.Error()
	}
	if err := contract.CheckRecordAsCreated(created, got); err != nil {
		// The warning quotes the reading once: the error's own quote goes.
		rd := readingRecordAmounts
		r.warn(rd, p.ID+": "+strings.TrimSuffix(err.Error(), " ("+rd.Sentence+" "+rd.Text+")"))
	}
	return ""
}

// msgTrxNotFound is the document's message of a status look-up of an
// unknown transaction (section 7, Payment, 404).
const msgTrxNotFound = contract.MsgNotFound

// resolvedCreated reports whether look-up l found the payment.
func resolvedCreated(l *record.Lookup) bool {
	return l != nil && l.Error == "" && l.Code == 200 && l.Amount != nil
}

// resolvedMissing reports whether look-up l says the payment does not exist.
func resolvedMissing(l *record.Lookup) bool {
	return l != nil && l.Error == "" && l.Code == 404 && l.Message == msgTrxNotFound
}

// retriedID is a created id of the retry scenario whose first answer was
// lost, with what it debited.
type retriedID struct {
	id             string
	balance, coins int64
	retries        int // requests after the first
}

// createdTwice explains an excess debit by the ids whose answer was lost
// and that were sent again. When the excess equals the debits of all of
// them, or of one of them, or lies within what debiting them again on
// their retries would take, it names them as created twice; "" when the
// excess has no such explanation.
func createdTwice(excess int64, retried []retriedID, of func(retriedID) int64) string {
	if excess <= 0 || len(retried) == 0 {
		return ""
	}
	var once, most int64
	var ids []string
	for _, x := range retried {
		once += of(x)
		most += of(x) * int64(x.retries)
		if len(ids) < 10 && of(x) > 0 {
			ids = append(ids, x.id)
		}
	}
	switch {
	case once == excess:
		return fmt.Sprintf("; the excess %d is exactly the debits of the %d ids whose answer was lost and that were sent again: each was created twice (%v)", excess, len(retried), ids)
	case excess <= most:
		for _, x := range retried {
			if of(x) == excess {
				return fmt.Sprintf("; the excess %d is exactly the debit of %s, whose answer was lost and that was sent again: created twice", excess, x.id)
			}
		}
		return fmt.Sprintf("; the excess %d lies within what debiting the retries of the %d ids whose answer was lost again would take (%d to %d): they were created twice or more (%v)", excess, len(retried), min(once, excess), most, ids)
	}
	return ""
}
