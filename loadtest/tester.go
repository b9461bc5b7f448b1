package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
)

// Tester runs one load test against one target.
type Tester struct {
	profile *profiles.Profile
	cfg     config
}

// New returns a Tester for the target described by profile p.
func New(p *profiles.Profile, opts ...Option) *Tester {
	c := config{
		scenario:         ScenarioCreate,
		load:             pacing.LoadProfile{Pacing: pacing.Constant, Rate: 50, Duration: 2 * time.Second},
		mix:              DefaultPaymentMix,
		ops:              DefaultOpMix,
		waveSize:         DefaultWaveSize,
		maxWorkers:       DefaultMaxWorkers,
		maxConns:         DefaultMaxConnections,
		timeout:          DefaultTimeout,
		drain:            DefaultDrain,
		lateAfter:        DefaultLateAfter,
		shard:            record.SingleShard,
		reconcile:        true,
		reconcileTimeout: DefaultReconcileTimeout,
		lookupWorkers:    DefaultLookupWorkers,
		provisionCount:   4,
		retries:          DefaultRetries,
		retryTimeout:     DefaultRetryTimeout,
		retryBackoff:     DefaultRetryBackoff,
		logger:           slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(&c)
	}
	return &Tester{profile: p, cfg: c}
}

// Run records a load test: the set-up (accounts, catalog, wallets before),
// the attack, the drain, and what the verdicts need after it (status
// look-ups, wallets after). It returns an error only when the run could not
// be carried out; what the target did wrong is for verdict.Judge to find in
// the record.
func (t *Tester) Run(ctx context.Context) (*record.Run, error) {
	c := t.cfg
	if err := c.validate(); err != nil {
		return nil, err
	}
	s, err := t.prepare(ctx, &c)
	if err != nil {
		return nil, err
	}
	defer s.cl.close()
	defer s.hist.Discard()
	out := s.newRun()
	s.readWalletsBefore(ctx, out)
	e, err := t.attack(ctx, s, out)
	if err != nil {
		return nil, err
	}
	if c.reconcile {
		if err := s.gatherAfter(ctx, e, out); err != nil {
			return nil, err
		}
	}
	if err := s.hist.Close(out); err != nil {
		return nil, err
	}
	if c.reconcile {
		out.Meta.ReconciledIn = time.Since(out.Meta.Ended)
	}
	return out, nil
}

// session is what a run sets up before its attack and reads after it.
type session struct {
	c        *config
	cl       *client
	codes    map[string]map[int]bool
	valid    *contract.Validator
	accounts []Account
	cat      *record.Catalog
	plan     *planner
	hist     *record.History // nil without the history check
	snaps    []record.AccountSnapshot
}

// prepare sets a run up: the documented codes, the ids, the client, the
// accounts (provisioned when the profile lists none), the catalog and the
// planner.
func (t *Tester) prepare(ctx context.Context, c *config) (*session, error) {
	codes, err := DocumentedCodes()
	if err != nil {
		return nil, err
	}
	ids, err := NewIDs(c.runID, c.shard)
	if err != nil {
		return nil, err
	}
	valid, err := contract.NewValidator(t.profile.BaseURL)
	if err != nil {
		return nil, err
	}
	cl, err := newClient(t.profile, c.maxConns, c.timeout)
	if err != nil {
		return nil, err
	}
	s := &session{c: c, cl: cl, codes: codes, valid: valid}
	if err := t.accountsAndCatalog(ctx, s); err != nil {
		cl.close()
		return nil, err
	}
	if s.plan, err = newPlanner(c.sc, cl, ids, c.shard, s.accounts, s.cat, c.mix, c.ops, c.waveSize); err != nil {
		cl.close()
		return nil, err
	}
	if c.history {
		s.hist = &record.History{}
		if c.recordDir != "" {
			if s.hist, err = record.NewHistoryFile(c.recordDir); err != nil {
				cl.close()
				return nil, err
			}
		}
	}
	return s, nil
}

// accountsAndCatalog finds the run's accounts and catalog.
func (t *Tester) accountsAndCatalog(ctx context.Context, s *session) error {
	c, cl := s.c, s.cl
	s.accounts = partitionAccounts(t.profile, c.shard)
	var err error
	if len(s.accounts) == 0 {
		c.logger.Warn("no load_customers in the profile: provisioning unfunded accounts, which pay through gateways only (the accounts the profile reserves for conformance scenarios are never spent)", "count", c.provisionCount)
		if s.accounts, err = cl.provision(ctx, c.runID, c.shard, c.provisionCount); err != nil {
			return err
		}
	}
	cat := c.catalog
	if cat == nil {
		exclude := map[int64]bool{}
		if id := t.profile.Fixtures.UnprocessableProductID; id != 0 {
			exclude[id] = true
		}
		if cat, err = cl.discover(ctx, defaultSubCategories, exclude, s.accounts[0].auth); err != nil {
			return err
		}
	}
	s.cat, err = cat.Restrict(c.products)
	return err
}

// newRun starts the record of the run with what is known before the attack.
func (s *session) newRun() *record.Run {
	c := s.c
	out := &record.Run{
		Meta: record.Meta{RunID: c.runID, Scenario: c.scenario, Target: s.cl.base, Shard: c.shard, Load: c.load,
			PaymentMix: s.plan.mix.String(), MaxWorkers: c.maxWorkers, MaxConnections: c.maxConns,
			Timeout: c.timeout, Drain: c.drain, LateAfter: c.lateAfter, Reconciled: c.reconcile},
		Catalog: s.cat,
	}
	c.sc.describe(c, &out.Meta)
	return out
}

// readWalletsBefore reads the wallets before the run: the reconciliation's
// start, and each funded account's budget. Without reconciliation (no
// wallet reads), or when a wallet cannot be read, the profile's min_balance
// and min_coins are the budget, if it gives them. It plans the run's funds
// against those budgets.
func (s *session) readWalletsBefore(ctx context.Context, out *record.Run) {
	c := s.c
	s.snaps = make([]record.AccountSnapshot, len(s.accounts))
	source := "wallets read before the run"
	for i := range s.accounts {
		a := &s.accounts[i]
		if c.reconcile {
			if w, ok := s.readBefore(ctx, i); ok {
				if a.Funded && !a.Shared { // a shared account's spending is not this shard's alone
					a.setBudget(w.Balance, w.Coins)
				}
				continue
			}
		}
		if a.Funded && !a.Shared && (a.minBalance > 0 || a.minCoins > 0) {
			a.setBudget(a.minBalance, a.minCoins)
			source = "the profile's min_balance and min_coins, where no wallet was read"
		}
	}
	s.plan.accounts = s.accounts // with their budgets
	s.plan.whenDry = c.whenDry
	out.Funds = planFunds(paymentsOf(c.sc, c, c.load.Expected()), c.load.Duration, s.plan.mix, s.cat.Products, s.accounts, source, c.whenDry)
	if f := out.Funds; f != nil && f.Short {
		c.logger.Warn("the load customers cannot carry every planned payment: " + f.String())
	}
}

// readBefore reads account i's wallet before the run into its snapshot;
// false when it could not be read.
func (s *session) readBefore(ctx context.Context, i int) (record.Wallet, bool) {
	a := s.accounts[i]
	s.snaps[i] = record.AccountSnapshot{Account: a.Key, Shard: s.c.shard.Index, Shared: a.Shared}
	w, err := readWallet(ctx, s.cl, s.hist, a, s.c.firstOtherClient()+i, record.PhaseBefore)
	if err != nil {
		s.snaps[i].Error = err.Error()
		return w, false
	}
	s.snaps[i].Before = &w
	return w, true
}

// newRecorder returns the recorder of the run. The results and the ledger
// kept in memory are sized for the schedule up front; past that (a
// max-rate run has no schedule), they grow by chunks, never copying what
// was collected while the attack runs. The charts' buckets suit the
// schedule; the drain, when it runs long, widens them. A reconciled run
// that records its ledger to a file looks its ids up from the file
// (lookupFile), keeping a byte per payment; without a file, the ledger is
// kept in memory for the look-ups.
func (c *config) newRecorder() (*record.Recorder, error) {
	size := record.ChunkSize
	if !c.load.Unbounded() && c.recordDir == "" {
		size = int(min(c.load.Expected()*1.02, 1<<20)) + 64
	}
	span := c.load.Duration + min(time.Second, c.load.Duration/10)
	return record.NewRecorder(c.recordDir, c.reconcile && c.recordDir == "", record.NewTally(time.Now(), span, false), size)
}

// attack runs the attack (with the nemesis, if any) and records it in out.
func (t *Tester) attack(ctx context.Context, s *session, out *record.Run) (*engine, error) {
	rec, err := s.c.newRecorder()
	if err != nil {
		return nil, err
	}
	e := &engine{cfg: s.c, cl: s.cl, plan: s.plan, codes: s.codes, valid: s.valid, hist: s.hist, rec: rec}
	if s.c.reconcile && s.c.recordDir != "" {
		e.marks = newSeqMarks(s.c.load)
	}
	var faults *nemesis.Execution
	e.onBegin = startNemesis(ctx, s.c, &faults)
	e.attack(ctx)
	if faults != nil {
		out.Meta.Faults = faults.Stop()
	}
	out.Meta.Began = e.began.UTC()    // the schedule's origin
	out.Meta.Ended = time.Now().UTC() // the attack's end, drain included
	out.Generator = e.generator()
	return e, rec.Close(out)
}

// gatherAfter gathers what the reconciliation needs after the attack: the
// created payments' status look-ups and the wallets after. It runs even
// when ctx was cancelled, bounded by its own deadline: what is not looked
// up or read by then is not reconciled, which is a violation. It fails
// only when the ledger file cannot be read or rewritten.
func (s *session) gatherAfter(ctx context.Context, e *engine, out *record.Run) error {
	c := s.c
	post, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.reconcileTimeout)
	defer cancel()
	if dead := e.awaitTarget(post, s.accounts[0].auth, c.targetWait()); dead != "" {
		c.logger.Warn(dead)
		out.Meta.ReconcileStopped = dead
		cancel() // nothing more is looked up or read
	}
	missed, err := e.lookUpAll(post, s.accounts, out)
	if err != nil {
		return err
	}
	switch dead := e.deadAt.Load(); {
	case dead != nil:
		out.Meta.ReconcileStopped = fmt.Sprintf("the target stopped answering during reconciliation (%d look-ups in a row: %s): stopped trying; %d created ids left unreconciled", deadAfter, *dead, missed)
		c.logger.Warn(out.Meta.ReconcileStopped)
		cancel()
	case missed > 0 && out.Meta.ReconcileStopped == "":
		c.logger.Warn("reconciliation timed out; created ids left unreconciled", "timeout", c.reconcileTimeout, "ids", missed)
	}
	for i, a := range s.accounts {
		if s.snaps[i].Error != "" {
			continue
		}
		w, err := readWallet(post, s.cl, s.hist, a, c.firstOtherClient()+i, record.PhaseAfter)
		if err != nil {
			s.snaps[i].Error = err.Error()
			continue
		}
		s.snaps[i].After = &w
	}
	out.Accounts = s.snaps
	if out.Meta.ReconcileStopped != "" {
		out.Meta.Reconciled = false // what it could not check fails as not reconciled
	}
	return nil
}
