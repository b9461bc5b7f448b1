package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
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
		historyTimeout:   verdict.DefaultHistoryTimeout,
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

// Run performs the load test: set-up (accounts, catalog, wallets before),
// the attack, the drain, and the reconciliation (status look-ups, wallets
// after). It returns an error only when the run could not be carried out;
// what the target did wrong is in the Outcome.
func (t *Tester) Run(ctx context.Context) (*record.Run, error) {
	c := t.cfg
	if err := c.validate(); err != nil {
		return nil, err
	}
	codes, err := DocumentedCodes()
	if err != nil {
		return nil, err
	}
	ids, err := NewIDs(c.runID, c.shard)
	if err != nil {
		return nil, err
	}
	cl, err := newClient(t.profile, c.maxConns, c.timeout)
	if err != nil {
		return nil, err
	}
	defer cl.close()

	accounts := partitionAccounts(t.profile, c.shard)
	if len(accounts) == 0 {
		c.logger.Warn("no load_customers in the profile: provisioning unfunded accounts, which pay through gateways only (the accounts the profile reserves for conformance scenarios are never spent)", "count", c.provisionCount)
		if accounts, err = cl.provision(ctx, c.runID, c.shard, c.provisionCount); err != nil {
			return nil, err
		}
	}
	cat := c.catalog
	if cat == nil {
		exclude := map[int64]bool{}
		if id := t.profile.Fixtures.UnprocessableProductID; id != 0 {
			exclude[id] = true
		}
		if cat, err = cl.discover(ctx, DefaultSubCategories, exclude, accounts[0].auth); err != nil {
			return nil, err
		}
	}
	if cat, err = cat.Restrict(c.products); err != nil {
		return nil, err
	}
	planner, err := newPlanner(c.sc, cl, ids, c.shard, accounts, cat, c.mix, c.ops, c.waveSize)
	if err != nil {
		return nil, err
	}

	out := &record.Run{
		Meta: record.Meta{RunID: c.runID, Scenario: c.scenario, Target: cl.base, Shard: c.shard, Load: c.load,
			PaymentMix: planner.mix.String(), MaxWorkers: c.maxWorkers, MaxConnections: c.maxConns,
			Timeout: c.timeout, Drain: c.drain, LateAfter: c.lateAfter, Reconciled: c.reconcile},
		Catalog: cat,
	}
	c.sc.describe(&c, &out.Meta)
	// The wallets before the run: the reconciliation's start, and each
	// funded account's budget. Without reconciliation (no wallet reads), or
	// when a wallet cannot be read, the profile's min_balance and min_coins
	// are the budget, if it gives them.
	var hist *record.History
	if c.history {
		hist = &record.History{}
	}
	snaps := make([]record.AccountSnapshot, len(accounts))
	source := "wallets read before the run"
	for i := range accounts {
		a := &accounts[i]
		fromProfile := func() {
			if a.Funded && !a.Shared && (a.minBalance > 0 || a.minCoins > 0) {
				a.wallet = &budget{}
				a.wallet.balance.Store(a.minBalance)
				a.wallet.coins.Store(a.minCoins)
				source = "the profile's min_balance and min_coins, where no wallet was read"
			}
		}
		if !c.reconcile {
			fromProfile()
			continue
		}
		snaps[i] = record.AccountSnapshot{Account: a.Key, Shard: c.shard.Index, Shared: a.Shared}
		w, err := readWallet(ctx, cl, hist, *a, c.firstOtherClient()+i, record.PhaseBefore)
		if err != nil {
			snaps[i].Error = err.Error()
			fromProfile()
			continue
		}
		snaps[i].Before = &w
		if a.Funded && !a.Shared { // a shared account's spending is not this shard's alone
			a.wallet = &budget{}
			a.wallet.balance.Store(w.Balance)
			a.wallet.coins.Store(w.Coins)
		}
	}
	planner.accounts = accounts // with their budgets
	planner.whenDry = c.whenDry
	out.Funds = planFunds(paymentsOf(c.sc, &c, c.load.Expected()), c.load.Duration, planner.mix, cat.Products, accounts, source, c.whenDry)
	if f := out.Funds; f != nil && f.Short {
		c.logger.Warn("the load customers cannot carry every planned payment: " + f.String())
	}

	// The results and the ledger kept in memory are sized for the schedule
	// up front; past that (a max-rate run has no schedule), they grow by
	// chunks, never copying what was collected while the attack runs.
	size := record.ChunkSize
	if !c.load.Unbounded() {
		size = int(min(c.load.Expected()*1.02, 1<<20)) + 64
	}
	if c.recordDir != "" {
		size = record.ChunkSize
	}
	// The charts' buckets suit the schedule; the drain, when it runs long,
	// widens them.
	span := c.load.Duration + min(time.Second, c.load.Duration/10)
	// A reconciled run that records its ledger to a file looks its ids up
	// from the file (lookupFile), keeping a byte per payment; without a
	// file, the ledger is kept in memory for the look-ups.
	rec, err := record.NewRecorder(c.recordDir, c.reconcile && c.recordDir == "", record.NewTally(time.Now(), span, false), size)
	if err != nil {
		return nil, err
	}
	e := &engine{cfg: &c, cl: cl, plan: planner, codes: codes, hist: hist, rec: rec}
	if c.reconcile && c.recordDir != "" {
		e.marks = &seqMarks{}
	}
	var faults *nemesis.Run
	e.onBegin = t.startNemesis(ctx, &faults)
	e.attack(ctx)
	if faults != nil {
		out.Meta.Faults = faults.Stop()
	}
	out.Meta.Began = e.began.UTC()    // the schedule's origin
	out.Meta.Ended = time.Now().UTC() // the attack's end, drain included
	out.Generator = e.generator()
	if err := rec.Close(out); err != nil {
		return nil, err
	}

	if c.reconcile {
		// Reconciliation runs even when ctx was cancelled, bounded by its
		// own deadline: what is not looked up or read by then is not
		// reconciled, which is a violation.
		post, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.reconcileTimeout)
		defer cancel()
		if dead := e.awaitTarget(post, accounts[0].auth, c.targetWait()); dead != "" {
			c.logger.Warn(dead)
			out.Meta.ReconcileStopped = dead
			cancel() // nothing more is looked up or read
		}
		missed, err := e.lookUpAll(post, accounts, out)
		if err != nil {
			return nil, err
		}
		switch dead := e.deadAt.Load(); {
		case dead != nil:
			out.Meta.ReconcileStopped = fmt.Sprintf("the target stopped answering during reconciliation (%d look-ups in a row: %s): stopped trying; %d created ids left unreconciled", deadAfter, *dead, missed)
			c.logger.Warn(out.Meta.ReconcileStopped)
			cancel()
		case missed > 0 && out.Meta.ReconcileStopped == "":
			c.logger.Warn("reconciliation timed out; created ids left unreconciled", "timeout", c.reconcileTimeout, "ids", missed)
		}
		for i, a := range accounts {
			if snaps[i].Error != "" {
				continue
			}
			w, err := readWallet(post, cl, hist, a, c.firstOtherClient()+i, record.PhaseAfter)
			if err != nil {
				snaps[i].Error = err.Error()
				continue
			}
			snaps[i].After = &w
		}
		out.Accounts = snaps
	}
	out.History = hist.Operations()
	if c.reconcile {
		out.Meta.ReconciledIn = time.Since(out.Meta.Ended)
	}
	return out, nil
}
