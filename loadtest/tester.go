package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
)

// Tester runs one load test against one target.
type Tester struct {
	profile *profiles.Profile
	cfg     config
}

// New returns a Tester for the target described by profile p, with
// DefaultSettings unless an option sets others (WithSettings).
func New(p *profiles.Profile, opts ...Option) *Tester {
	c := config{Settings: DefaultSettings(), logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	return &Tester{profile: p, cfg: c}
}

// Run records a load test into dir (created if missing): the set-up
// (accounts, catalog, wallets before), the attack, the drain, and what the
// verdicts need after it (status look-ups, wallets after). It returns an error only when the run could not
// be carried out; what the target did wrong is for verdict.Judge to find in
// the record.
func (t *Tester) Run(ctx context.Context, dir string) (*record.Run, error) {
	c := t.cfg
	if err := c.validate(); err != nil {
		return nil, err
	}
	s, err := t.prepare(ctx, &c, dir)
	if err != nil {
		return nil, err
	}
	defer s.cl.close()
	defer s.hist.Discard()
	run := s.newRun()
	s.readWalletsBefore(ctx, run)
	e, err := t.attack(ctx, s, run, dir)
	if err != nil {
		return nil, err
	}
	reconciles := c.reconciles()
	if e.stoppedGateway > 0 {
		// The target's answers were mostly a gateway's: nothing the
		// look-ups would read is the API's either.
		reconciles, run.Meta.Reconciled = false, false
	}
	if reconciles {
		if err := s.gatherAfter(ctx, e, run, dir); err != nil {
			return nil, err
		}
	}
	if err := s.hist.Close(run); err != nil {
		return nil, err
	}
	if reconciles {
		run.Meta.ReconciledIn = time.Since(run.Meta.Ended)
	}
	return run, nil
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
func (t *Tester) prepare(ctx context.Context, c *config, dir string) (*session, error) {
	codes, err := documentedCodes()
	if err != nil {
		return nil, err
	}
	ids, err := newIDs(c.RunID, c.Shard)
	if err != nil {
		return nil, err
	}
	valid, err := contract.NewValidator(t.profile.BaseURL)
	if err != nil {
		return nil, err
	}
	cl, err := newClient(t.profile, c.MaxConnections, c.Timeout, c.Conn)
	if err != nil {
		return nil, err
	}
	if err := awaitTarget(ctx, cl, &c.Conn); err != nil {
		cl.close()
		return nil, err
	}
	s := &session{c: c, cl: cl, codes: codes, valid: valid}
	if err := t.accountsAndCatalog(ctx, s); err != nil {
		cl.close()
		return nil, err
	}
	if s.plan, err = newPlanner(c.sc.keepsIDs(), cl, ids, c.Shard, s.accounts, s.cat, c.mix, c.ops, c.WaveSize); err != nil {
		cl.close()
		return nil, err
	}
	if c.checksHistory() {
		if s.hist, err = record.NewHistory(dir); err != nil {
			cl.close()
			return nil, err
		}
	}
	return s, nil
}

// awaitTarget runs the preflight check as conn's
// --wait-for-target asks: once, or again and again until it passes or the
// wait is over, when the error is the last reason (transport.Wait). A TLS
// handshake that failed is explained in words (which CA, which
// certificate, what to change).
func awaitTarget(ctx context.Context, cl *client, conn *transport.Options) error {
	err := transport.Wait(ctx, conn.WaitForTarget, func(ctx context.Context) error { return preflight(ctx, cl) })
	if err != nil {
		return fmt.Errorf("preflight: %w", conn.Explain(err))
	}
	return nil
}

// preflightTimeout is the least the preflight waits for its answer,
// whatever the run's per-request timeout: the first request of a run pays
// for a connection (and a handshake), and a --timeout set tight to judge
// the target's latency must not fail the run before it starts.
const preflightTimeout = 10 * time.Second

// preflight checks with one request that the target can be load-tested at
// all, as the suite's preflight does: it answers (over the TLS of the
// flags), with JSON carrying status and message, and it does not refuse
// the profile's secret key and main token with 401. It asks for the first
// product of a sync, which the run asks for with the main token anyway (it
// reads no account of the main token's). A throttled answer passes: the
// run's gate waits for the target. A gateway's page (a proxy's 400 or 403
// after the handshake: a client certificate or a header it wants) is said
// as the gateway's, with its title and what to change.
func preflight(ctx context.Context, cl *client) error {
	c := cl.syncProducts(defaultSubCategories[0], 1, 1)
	ctx, cancel := context.WithTimeout(ctx, max(cl.timeout, preflightTimeout))
	defer cancel()
	r := cl.do(ctx, c)
	defer r.release()
	if r.err != nil || r.throttled {
		return r.err
	}
	if g := r.gateway; g != nil {
		return fmt.Errorf("GET %s: %w", c.url, *g)
	}
	env, _, err := contract.Decode(r.body)
	if err != nil {
		return fmt.Errorf("GET %s answered %d with Content-Type %q and a body that is not a JSON object with status and message (%w); is --target the API's base URL?",
			c.url, r.code, r.contentType, err)
	}
	if r.code == http.StatusUnauthorized {
		return fmt.Errorf("GET %s refused the profile's secret_key and main_token with 401 %q; check both keys of the profile", c.url, env.Message)
	}
	return nil
}

// accountsAndCatalog finds the run's accounts and catalog.
func (t *Tester) accountsAndCatalog(ctx context.Context, s *session) error {
	c, cl := s.c, s.cl
	s.accounts = partitionAccounts(t.profile, c.Shard)
	var err error
	if len(s.accounts) == 0 {
		c.logger.Warn("no load_customers in the profile: provisioning unfunded accounts, which pay through gateways only (the accounts the profile reserves for conformance scenarios are never spent)", "count", provisionCount)
		if s.accounts, err = cl.provision(ctx, c.RunID, c.Shard, provisionCount); err != nil {
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
	s.cat, err = cat.Restrict(c.products())
	return err
}

// newRun starts the record of the run with what is known before the attack.
func (s *session) newRun() *record.Run {
	c := s.c
	run := &record.Run{Meta: record.Meta{Settings: c.Settings, Target: s.cl.base, Insecure: c.Conn.Warning(), Reconciled: c.reconciles()}, Catalog: s.cat}
	run.Meta.PaymentMix, run.Meta.OpMix = s.plan.mix.String(), c.ops.String() // the kinds the run could pay with
	c.sc.describe(&run.Meta)
	return run
}

// readWalletsBefore reads the wallets before the run: the reconciliation's
// start, and each funded account's budget. Without reconciliation (no
// wallet reads), or when a wallet cannot be read, the profile's min_balance
// and min_coins are the budget, if it gives them. It plans the run's funds
// against those budgets.
func (s *session) readWalletsBefore(ctx context.Context, run *record.Run) {
	c := s.c
	s.snaps = make([]record.AccountSnapshot, len(s.accounts))
	source := "wallets read before the run"
	for i := range s.accounts {
		a := &s.accounts[i]
		if c.reconciles() {
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
	s.plan.whenDry = c.WhenDry
	run.Funds = planFunds(c.sc.payments(&c.Settings, c.Load.Expected()), c.Load.Duration, s.plan.mix, s.cat.Products, s.accounts, source, c.WhenDry)
	if f := run.Funds; f != nil && f.Short {
		c.logger.Warn("the load customers cannot carry every planned payment: " + f.String())
	}
}

// readBefore reads account i's wallet before the run into its snapshot;
// false when it could not be read.
func (s *session) readBefore(ctx context.Context, i int) (record.Wallet, bool) {
	a := s.accounts[i]
	s.snaps[i] = record.AccountSnapshot{Account: a.Key, Shard: s.c.Shard.Index, Shared: a.Shared}
	w, err := readWallet(ctx, s.cl, s.hist, a, s.c.firstOtherClient()+i, record.PhaseBefore)
	if err != nil {
		s.snaps[i].Error = err.Error()
		return w, false
	}
	s.snaps[i].Before = &w
	return w, true
}

// attack runs the attack (with the nemesis, if any) and records it in run.
func (t *Tester) attack(ctx context.Context, s *session, run *record.Run, dir string) (*engine, error) {
	// The charts' buckets suit the schedule; the drain, when it runs long,
	// widens them.
	span := s.c.Load.Duration + min(time.Second, s.c.Load.Duration/10)
	rec, err := record.NewRecorder(dir, record.NewTally(time.Now(), span, s.c.LateAfter, false))
	if err != nil {
		return nil, err
	}
	e := &engine{cfg: s.c, cl: s.cl, plan: s.plan, codes: s.codes, valid: s.valid, hist: s.hist, rec: rec}
	if s.c.reconciles() || s.c.sc.sendsIDsAgain(&s.c.Settings) {
		e.marks = newSeqMarks(s.c.Load)
	}
	e.gatewayStop = make(chan struct{})
	var faults *nemesis.Execution
	e.onBegin = startNemesis(ctx, s.c, &faults)
	e.attack(ctx)
	if faults != nil {
		run.Meta.Faults = faults.Stop()
	}
	run.Meta.Began = e.began.UTC()    // the schedule's origin
	run.Meta.Ended = time.Now().UTC() // the attack's end, drain included
	run.Generator = e.generator()
	return e, rec.Close(run)
}

// startNemesis is the engine's hook at the attack's start: the schedule's
// times count from there. c is the run's validated configuration (its log
// is never nil).
func startNemesis(ctx context.Context, c *config, faults **nemesis.Execution) func(time.Time) {
	if len(c.Nemesis) == 0 {
		return nil
	}
	return func(began time.Time) {
		*faults = nemesis.Start(ctx, c.Nemesis, began, c.Load.Duration, c.nemesisLog)
	}
}
