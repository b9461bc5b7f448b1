package reference

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/partnercommerce/conformance/reference/storage"
)

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock the store reads time from (default time.Now).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// The default state transition times (docs/reference-choices.md).
const (
	DefaultSettleAfter = 3 * time.Second
	DefaultExpireAfter = 15 * time.Minute
)

// WithSettleAfter sets how long a fully paid transaction stays PROCESSING
// before it settles (default DefaultSettleAfter).
func WithSettleAfter(d time.Duration) Option { return func(s *Store) { s.rules.settleAfter = d } }

// WithExpireAfter sets how long an unpaid payment waits before it expires
// (default DefaultExpireAfter).
func WithExpireAfter(d time.Duration) Option { return func(s *Store) { s.rules.expireAfter = d } }

// WithWalletTakenWhenPaid makes a payment that leaves a remainder to a
// gateway take its balance and coins only when the gateway part is paid,
// not when it is created (docs/reference-choices.md, "When a payment with a
// gateway remainder takes the wallet"): until then the wallet keeps them,
// and the profile shows and later payments spend what it holds. The
// reference has no gateway, so such a payment never takes them. Off by
// default.
func WithWalletTakenWhenPaid() Option { return func(s *Store) { s.walletWhenPaid = true } }

// WithLogger sets where the store logs (default: nowhere). Only a store
// with a state directory logs: what its start found in the journal, a
// compaction, a repair, and each episode of failed writes.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// WithGap sets what runs in the gap a racy fault opens in a lock hold
// (default runtime.Gosched). Tests hold two goroutines there to make the
// race deterministic; without such a fault it never runs.
func WithGap(yield func()) Option { return func(s *Store) { s.yield = yield } }

// Store holds the state of the reference server: the immutable catalog and,
// under one mutex, the accounts, their wallets and the transactions.
type Store struct {
	cat    *catalog
	now    func() time.Time
	rules  transitionRules
	faults []Fault
	// policy is the rules' data (limits, formats, switches), fixed by
	// NewStore and never changed afterwards.
	policy policy
	// yield runs in the gap a racy policy opens in a lock hold (see gap).
	yield func()
	// walletWhenPaid is WithWalletTakenWhenPaid's, for the policy.
	walletWhenPaid bool
	// The data set's accounts and transactions, which the state starts
	// from (again when a failed write rolls it back).
	seedAccounts []AccountSeed
	seedTxs      []TransactionSeed

	// The state directory (WithState): stateDir is empty and journal nil
	// without one (state.go).
	stateDir string
	openFile OpenFunc
	repair   bool
	logger   *slog.Logger
	header   []byte
	journal  *storage.Journal
	// observeCommit is WithCommitObserver's (commits.go).
	observeCommit func(Commit)

	mu            sync.Mutex
	accounts      map[int64]*account      // by id
	byToken       map[string]*account     // by token
	byPhone       map[partnerKey]*account // by partner and phone number
	byEmail       map[partnerKey]*account // by partner and lower-case email
	txs           transactions
	nextAccountID int64
	stale         map[int64]staleWallet // by account id; only with FaultStaleProfile
	scratch       []byte                // where journal records are encoded
	// replayed counts the records the start replayed (state.go).
	replayed struct{ accounts, payments int }
}

// partnerKey scopes a string to one partner.
type partnerKey struct {
	partner int64
	key     string
}

// NewStore builds a store from a data set. The data set is copied; later
// changes to ds do not reach the store.
func NewStore(ds *Dataset, opts ...Option) (*Store, error) {
	if ds == nil {
		return nil, errors.New("reference: nil dataset")
	}
	if err := ds.validate(); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	s := &Store{
		cat:      newCatalog(ds),
		now:      time.Now,
		rules:    transitionRules{settleAfter: DefaultSettleAfter, expireAfter: DefaultExpireAfter},
		yield:    runtime.Gosched,
		accounts: map[int64]*account{},
		byToken:  map[string]*account{},
		byPhone:  map[partnerKey]*account{},
		byEmail:  map[partnerKey]*account{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.now == nil {
		return nil, errors.New("reference: nil clock")
	}
	if s.rules.settleAfter < 0 || s.rules.expireAfter < 0 {
		return nil, errors.New("reference: settle and expire durations must not be negative")
	}
	if s.yield == nil {
		return nil, errors.New("reference: nil gap function")
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.policy = policyWith(s.faults)
	s.policy.walletWhenPaid = s.walletWhenPaid
	s.txs = newTransactions(s.policy.trxNumberSep)
	s.seedAccounts, s.seedTxs = slices.Clone(ds.Accounts), slices.Clone(ds.Transactions)
	s.loadSeed()
	if s.stateDir != "" {
		if err := s.openState(ds); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// loadSeed adds the data set's accounts and transactions to empty state.
// The caller owns s or holds s.mu.
func (s *Store) loadSeed() {
	for _, a := range s.seedAccounts {
		reg, _ := parseDateTime(a.RegisteredAt) // validated by NewStore
		acc := &account{
			id: a.ID, partner: a.Partner, name: a.Name, email: a.Email, phone: a.Phone,
			deviceID: a.DeviceID, token: a.Token, main: a.Main, level: a.Level,
			referralCode: a.ReferralCode, registeredAt: reg,
			balance: a.Balance, coins: a.Coins, walletUnavailable: a.WalletUnavailable,
		}
		if a.IdentityNumber != nil {
			id := *a.IdentityNumber
			acc.identityNumber = &id
		}
		s.index(acc)
		s.nextAccountID = max(s.nextAccountID, a.ID)
	}
	for _, t := range s.seedTxs {
		s.seedTransaction(t)
	}
}

// resetState empties the accounts and the transactions and loads the data
// set's again. The caller holds s.mu.
func (s *Store) resetState() {
	s.accounts, s.byToken = map[int64]*account{}, map[string]*account{}
	s.byPhone, s.byEmail = map[partnerKey]*account{}, map[partnerKey]*account{}
	s.txs.reset()
	s.nextAccountID, s.stale = 0, nil
	s.loadSeed()
}

// release unlocks s.mu and returns the end of the journal's records, which
// the state the caller read or changed includes (0 without a journal). The
// caller holds s.mu.
func (s *Store) release() uint64 {
	var end uint64
	if s.journal != nil {
		end = s.journal.End()
	}
	s.mu.Unlock()
	return end
}

// durable waits until the journal's records up to end are on disk, so an
// answer never shows a change that a crash could still lose; ErrInternal
// when a failed write dropped them. The caller does not hold s.mu.
func (s *Store) durable(end uint64) error {
	if s.journal == nil {
		return nil
	}
	if err := s.journal.Wait(end); err != nil {
		return ErrInternal
	}
	return nil
}

// seedTransaction stores a transaction of the data set (validated): its payment was
// never formed, and its number is kept as given.
func (s *Store) seedTransaction(t TransactionSeed) {
	created, _ := parseDateTime(t.CreatedAt)
	i, r := s.txs.add()
	r.id, r.partner, r.account = t.ID, t.Partner, t.Account
	r.product = s.cat.productIndex[t.Product]
	r.created = created.UnixNano()
	r.paymentStatus = paymentStatusIndex(PaymentUnpaid)
	r.status = transactionStatusIndex(TransactionWaitingPayment)
	if t.PaymentFormed {
		r.flags |= flagFormed
	}
	r.trxID = s.txs.text.add(t.PartnerTrxID)
	s.txs.setMsisdn(i, t.Msisdn)
	s.txs.extra(i, true).number = t.TransactionNumber
	s.txs.indexTrxID(s.txs.hash(t.Partner, t.PartnerTrxID), t.Partner, t.PartnerTrxID, i)
	s.txs.seededNumbers[t.TransactionNumber] = i
	s.txs.lastID = max(s.txs.lastID, t.ID)
	m := trxNumberSeq.FindStringSubmatch(t.TransactionNumber)
	if n, err := strconv.ParseInt(m[2], 10, 64); err == nil {
		s.txs.lastSeq[t.Partner] = max(s.txs.lastSeq[t.Partner], n)
	}
}

// index adds an account to every index. The caller holds s.mu (or owns s).
func (s *Store) index(a *account) {
	s.accounts[a.id] = a
	s.byToken[a.token] = a
	s.byPhone[partnerKey{a.partner, a.phone}] = a
	s.byEmail[partnerKey{a.partner, lowerEmail(a.email)}] = a
}

// pricePlan returns the partner's plan, or the price plan error when the
// plan is not active.
func (s *Store) pricePlan(partnerID int64) (*PricePlan, error) {
	p := s.cat.partners[partnerID]
	if p == nil {
		return nil, ErrInternal
	}
	plan := s.cat.plans[p.PricePlanID]
	if plan == nil {
		return nil, ErrInternal
	}
	if !plan.Active && s.policy.enforcePricePlan {
		return nil, newError(KindInvalid, pricePlanMessage(s.cat.operatorTeam))
	}
	return plan, nil
}

// gap releases s.mu, runs s.yield and takes s.mu again: the window between a
// read and a write that a policy without atomicity opens. The caller holds
// s.mu.
func (s *Store) gap() {
	s.mu.Unlock()
	s.yield()
	s.mu.Lock()
}
