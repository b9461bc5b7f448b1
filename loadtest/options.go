package loadtest

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// Defaults of a run. The connection cap defaults to none (0): connections
// scale with the requests in flight, as vegeta's do. The worker cap
// defaults to 0, which a paced run reads as the requests its peak rate
// starts within one timeout (defaultWorkerCap): a run that keeps its
// schedule never reaches it, and one that falls behind stays bounded. A
// max-rate run needs a worker cap: without a schedule, the cap is what
// sets its rate.
const (
	DefaultMaxConnections = 0
	DefaultMaxWorkers     = 0
	DefaultTimeout        = 5 * time.Second
	DefaultDrain          = 10 * time.Second
	DefaultLateAfter      = 10 * time.Millisecond
	DefaultWaveSize       = 32
	DefaultLookupWorkers  = 8
	// DefaultReconcileTimeout bounds the reconciliation after the attack
	// (status look-ups and wallet reads).
	DefaultReconcileTimeout = 2 * time.Minute
)

// Option configures a Tester.
type Option func(*config)

type config struct {
	scenario         string   // the name given
	sc               scenario // resolved by validate
	load             pacing.LoadProfile
	mix, ops         Weights
	waveSize         int
	maxWorkers       int
	maxConns         int
	timeout          time.Duration
	drain            time.Duration
	lateAfter        time.Duration
	shard            record.Shard
	runID            string
	reconcile        bool
	reconcileTimeout time.Duration
	catalog          *record.Catalog
	products         []string // ids or sub categories the payments choose from; all when empty
	whenDry          string
	progress         func(Progress)
	progressEvery    time.Duration
	logger           *slog.Logger
	lookupWorkers    int
	provisionCount   int

	history          bool // the history check (history.go)
	historyReadEvery time.Duration
	retries          int // the retry scenario (retry.go)
	retryTimeout     time.Duration
	retryBackoff     time.Duration

	nemesis    nemesis.Schedule // faults run during the attack (faults.go)
	nemesisLog io.Writer
}

// WithScenario sets the scenario (create, idempotency or mixed).
func WithScenario(name string) Option { return func(c *config) { c.scenario = name } }

// WithLoad sets the rate (requests per second, in every scenario), duration and pacing.
func WithLoad(lp pacing.LoadProfile) Option { return func(c *config) { c.load = lp } }

// WithPaymentMix sets the weights of the balance, coins and gateway kinds.
func WithPaymentMix(w Weights) Option { return func(c *config) { c.mix = w } }

// WithOpMix sets the weights of create, status, list and sync in the mixed scenario.
func WithOpMix(w Weights) Option { return func(c *config) { c.ops = w } }

// WithWaveSize sets N, the requests per idempotency wave.
func WithWaveSize(n int) Option { return func(c *config) { c.waveSize = n } }

// WithMaxWorkers caps the concurrent requests (goroutines) of the
// generator; 0, the default, is the peak rate × the timeout, between
// MinDefaultWorkers and MaxDefaultWorkers (defaultWorkerCap).
func WithMaxWorkers(n int) Option { return func(c *config) { c.maxWorkers = n } }

// WithMaxConnections caps the connections to the target; 0, the default,
// is no cap (connections scale with the requests in flight).
func WithMaxConnections(n int) Option { return func(c *config) { c.maxConns = n } }

// WithTimeout sets the per-request timeout.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithDrain sets how long in-flight requests may finish after the duration.
func WithDrain(d time.Duration) Option { return func(c *config) { c.drain = d } }

// WithLateAfter sets how late a send may be before it counts as late.
func WithLateAfter(d time.Duration) Option { return func(c *config) { c.lateAfter = d } }

// WithShard makes the run one shard of a distributed run.
func WithShard(s record.Shard) Option { return func(c *config) { c.shard = s } }

// WithRunID sets the run id (shared by every shard of a distributed run).
func WithRunID(id string) Option { return func(c *config) { c.runID = id } }

// WithReconcile turns the after-run reconciliation on (the default) or off.
func WithReconcile(on bool) Option { return func(c *config) { c.reconcile = on } }

// WithReconcileTimeout bounds the reconciliation: the status look-ups and
// wallet reads that have not finished by then are given up, and the ids
// and accounts they concern are reported as not reconciled (a violation).
func WithReconcileTimeout(d time.Duration) Option { return func(c *config) { c.reconcileTimeout = d } }

// WithProducts restricts the products payments are made for to those whose
// id or sub category is listed ("1001", "prabayar").
func WithProducts(only ...string) Option { return func(c *config) { c.products = only } }

// WithWhenDry sets what the run does when the paying accounts can afford no
// product: DryContinue (the default), DryGateway or DryStop.
func WithWhenDry(rule string) Option { return func(c *config) { c.whenDry = rule } }

// WithCatalog skips catalog discovery and uses cat.
func WithCatalog(cat *record.Catalog) Option { return func(c *config) { c.catalog = cat } }

// WithProgress calls fn every interval during the attack, from one goroutine.
func WithProgress(every time.Duration, fn func(Progress)) Option {
	return func(c *config) { c.progress, c.progressEvery = fn, every }
}

// WithLogger sets the logger for setup and reconciliation events.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

func (c *config) validate() error {
	sc, err := scenarioNamed(c.scenario)
	if err != nil {
		return err
	}
	c.sc = sc
	if err := c.load.Validate(); err != nil {
		return err
	}
	if c.maxWorkers < 0 || c.maxConns < 0 {
		return errors.New("max workers and max connections must be at least 1, or 0 for no cap")
	}
	if c.maxWorkers == 0 && c.load.Unbounded() {
		return errors.New("a max-rate run (rate 0) needs a cap on the workers (--max-workers): without a schedule, the cap sets the rate")
	}
	if c.timeout <= 0 || c.drain < 0 {
		return errors.New("timeout must be above 0 and drain not negative")
	}
	if c.maxWorkers == 0 {
		c.maxWorkers = defaultWorkerCap(c.load, c.timeout, c.waveSize)
	}
	if c.reconcileTimeout <= 0 {
		return errors.New("reconcile timeout must be above 0")
	}
	if err := sc.check(c); err != nil {
		return err
	}
	if n := sc.perHit(c); n > 1 {
		if err := c.load.Divided(n).Validate(); err != nil {
			return fmt.Errorf("rates count requests, and %s sends %d per hit: %w", sc.name(), n, err)
		}
	}
	switch c.whenDry {
	case "":
		c.whenDry = record.DryContinue
	case record.DryContinue, record.DryGateway, record.DryStop:
	default:
		return fmt.Errorf("when dry %q: want %s, %s or %s", c.whenDry, record.DryContinue, record.DryGateway, record.DryStop)
	}
	if err := c.checkHistoryConfig(); err != nil {
		return err
	}
	if err := c.checkNemesis(); err != nil {
		return err
	}
	if c.runID == "" {
		c.runID = NewRunID()
	}
	return c.shard.Validate()
}

// firstOtherClient is the history client number of the first reader that
// is not a worker (wallet reads, status look-ups): past every worker's
// number, the cap when there is one.
func (c *config) firstOtherClient() int {
	if c.maxWorkers > 0 {
		return c.maxWorkers
	}
	return uncappedOtherClients
}

// uncappedOtherClients numbers the readers of a run without a worker cap:
// far above the workers any run starts.
const uncappedOtherClients = 1 << 24
