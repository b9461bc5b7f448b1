package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/partnercommerce/conformance/loadtest/live"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// DefaultSettings are the settings of a run that sets none: 200 requests
// a second of the mixed scenario for 10 s. The connection cap defaults to
// none (0): connections scale with the requests in flight, as vegeta's
// do. The worker cap defaults to 0, which a paced run reads as the
// requests its peak rate starts within one timeout (defaultWorkerCap): a
// run that keeps its schedule never reaches it, and one that falls behind
// stays bounded. A max-rate run needs a worker cap: without a schedule,
// the cap is what sets its rate.
func DefaultSettings() record.Settings {
	return record.Settings{
		Scenario:   ScenarioMixed,
		Load:       pacing.LoadProfile{Pacing: pacing.Constant, Rate: 200, Period: 10 * time.Second, StartAt: "mean-up", Duration: 10 * time.Second},
		PaymentMix: defaultPaymentMix.String(), OpMix: defaultOpMix.String(), WaveSize: 32, WhenDry: record.DryContinue,
		Retries: 3, RetryTimeout: 250 * time.Millisecond, RetryBackoff: 50 * time.Millisecond,
		Timeout: 5 * time.Second, Drain: 10 * time.Second, LateAfter: 10 * time.Millisecond,
		Shard: record.SingleShard, ReconcileTimeout: 2 * time.Minute,
	}
}

// ReadProfile layers the load profile file path onto s: the keys it sets
// (those of record.Settings) replace s's; a load it sets replaces s's
// whole. Unknown keys are an error.
func ReadProfile(path string, s *record.Settings) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load profile: %w", err)
	}
	load := s.Load
	s.Load = pacing.LoadProfile{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: load profile: %w", path, err)
	}
	if reflect.ValueOf(s.Load).IsZero() {
		s.Load = load
		return nil
	}
	s.Load.Normalize()
	if err := s.Load.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Option configures what a run needs besides its settings.
type Option func(*config)

// config is a run's settings and what it needs besides them; validate
// resolves what the settings name (the scenario, the mixes).
type config struct {
	record.Settings
	sc       scenario // the scenario named
	mix, ops Weights  // the mixes, parsed

	catalog       *record.Catalog
	progress      func(Progress)
	progressEvery time.Duration
	logger        *slog.Logger
	nemesisLog    io.Writer
	metrics       *live.Metrics // nil: none
}

// Constants of a run that are not settings.
const (
	lookupWorkers  = 8 // the status look-ups made at once after the attack
	provisionCount = 4 // the accounts a run provisions when the profile lists none
)

// WithSettings sets the run's settings (DefaultSettings, a load profile
// file, the flags).
func WithSettings(s record.Settings) Option { return func(c *config) { c.Settings = s } }

// WithCatalog skips catalog discovery and uses cat.
func WithCatalog(cat *record.Catalog) Option { return func(c *config) { c.catalog = cat } }

// WithProgress calls fn every interval during the attack, from one goroutine.
func WithProgress(every time.Duration, fn func(Progress)) Option {
	return func(c *config) { c.progress, c.progressEvery = fn, every }
}

// WithMetrics shows m every result as the run's tally counts it, with the
// tally, the requests in flight and the reconciliation's progress (live
// metrics, --prometheus-addr).
func WithMetrics(m *live.Metrics) Option { return func(c *config) { c.metrics = m } }

// WithLogger sets the logger for setup and reconciliation events.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithNemesisLog sends the output of the nemesis's commands to w.
func WithNemesisLog(w io.Writer) Option { return func(c *config) { c.nemesisLog = w } }

// Check reports the first setting of s a run would refuse, as Run does
// before anything is sent.
func Check(s record.Settings) error {
	c := config{Settings: s}
	return c.validate()
}

// reconciles reports whether the run looks its ids up and reads the
// wallets after the attack.
func (c *config) reconciles() bool { return !c.NoReconcile }

// checksHistory reports whether the run records its history and checks
// it (--check history).
func (c *config) checksHistory() bool { return c.Check == record.CheckHistory }

func (c *config) validate() error {
	sc, err := scenarioNamed(c.Scenario)
	if err != nil {
		return err
	}
	c.sc = sc
	if c.mix, err = parseWeights(c.PaymentMix, kindOrder...); err != nil {
		return fmt.Errorf("payment mix: %w", err)
	}
	if c.ops, err = parseWeights(c.OpMix, opOrder...); err != nil {
		return fmt.Errorf("operation mix: %w", err)
	}
	c.Load.Normalize()
	if err := c.Load.Validate(); err != nil {
		return err
	}
	if err := c.checkCaps(); err != nil {
		return err
	}
	if err := sc.check(&c.Settings); err != nil {
		return err
	}
	if n := sc.perHit(&c.Settings); n > 1 {
		if err := c.Load.Divided(n).Validate(); err != nil {
			return fmt.Errorf("rates count requests, and %s sends %.4g per hit: %w", sc.name(), n, err)
		}
	}
	switch c.WhenDry {
	case "":
		c.WhenDry = record.DryContinue
	case record.DryContinue, record.DryGateway, record.DryStop:
	default:
		return fmt.Errorf("when dry %q: want %s, %s or %s", c.WhenDry, record.DryContinue, record.DryGateway, record.DryStop)
	}
	if err := c.checkHistory(); err != nil {
		return err
	}
	if err := c.checkNemesis(); err != nil {
		return err
	}
	if c.RunID == "" {
		c.RunID = NewRunID()
	}
	return c.Shard.Validate()
}

// checkCaps checks the caps, the timeouts and the drain, and sets the
// worker cap of a paced run given none.
func (c *config) checkCaps() error {
	switch {
	case c.MaxWorkers < 0 || c.MaxConnections < 0:
		return errors.New("max workers and max connections must be at least 1, or 0 for no cap")
	case c.MaxWorkers == 0 && c.Load.Unbounded():
		return errors.New("a max-rate run (rate 0) needs a cap on the workers (--max-workers): without a schedule, the cap sets the rate")
	case c.Timeout <= 0 || c.Drain < 0:
		return errors.New("timeout must be above 0 and drain not negative")
	case c.ReconcileTimeout <= 0:
		return errors.New("reconcile timeout must be above 0")
	}
	if c.MaxWorkers == 0 {
		c.MaxWorkers = defaultWorkerCap(c.Load, c.Timeout, c.WaveSize)
	}
	return nil
}

// checkNemesis checks the nemesis's schedule (times within the run, every
// program found) before anything is sent.
func (c *config) checkNemesis() error {
	if len(c.Nemesis) == 0 {
		return nil
	}
	if c.nemesisLog == nil {
		c.nemesisLog = io.Discard
	}
	return c.Nemesis.Validate(c.Load.Duration, exec.LookPath)
}

// products are the products payments are made for: ids or sub categories
// ("1001", "prabayar"); all when none.
func (c *config) products() []string {
	var out []string
	for _, part := range strings.Split(c.Products, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// firstOtherClient is the history client number of the first reader that
// is not a worker (wallet reads, status look-ups): past every worker's
// number, the cap when there is one.
func (c *config) firstOtherClient() int {
	if c.MaxWorkers > 0 {
		return c.MaxWorkers
	}
	return uncappedOtherClients
}

// uncappedOtherClients numbers the readers of a run without a worker cap:
// far above the workers any run starts.
const uncappedOtherClients = 1 << 24

// checkHistory validates the settings of the history check.
func (c *config) checkHistory() error {
	switch c.Check {
	case "":
		return nil
	case record.CheckHistory:
	default:
		return fmt.Errorf("check %q: want %s", c.Check, record.CheckHistory)
	}
	if c.Scenario == ScenarioIdempotency {
		return fmt.Errorf("the history check runs with the create, mixed and retry scenarios, not %s", c.Scenario)
	}
	if !c.reconciles() {
		return errors.New("the history check needs the reconciliation (its status look-ups and last wallet reads)")
	}
	if c.Shard.Count > 1 {
		return errors.New("the history check needs every operation on an account: run it on one shard")
	}
	if c.HistoryReads < 0 {
		return errors.New("the history's read interval must not be negative")
	}
	return nil
}

// The default worker cap of a paced run lies between these bounds.
const (
	// minDefaultWorkers keeps a slow rate's cap above what an ordinary
	// latency needs.
	minDefaultWorkers = 64
	// maxDefaultWorkers bounds what a run that falls behind keeps in
	// flight: each worker holds a goroutine, a connection and a request,
	// about 37 KiB together (measured: 367 MiB with 10,000 workers waiting
	// on a target that never answers), so about 185 MiB at this cap.
	maxDefaultWorkers = 5000
)

// defaultWorkerCap is the worker cap of a paced run given none: the
// requests its peak rate starts within one timeout. No answer takes longer
// than the timeout, so a run that keeps its schedule never reaches it; a
// run that falls behind (the target or the generator's CPU too slow for
// the rate) waits for a worker at the cap, and says so, instead of starting
// workers without bound.
func defaultWorkerCap(lp pacing.LoadProfile, timeout time.Duration, waveSize int) int {
	n := math.Ceil(peakRate(lp) * timeout.Seconds())
	return int(max(min(n, maxDefaultWorkers), minDefaultWorkers, float64(waveSize)))
}

// peakRate is the highest rate lp schedules, per second.
func peakRate(lp pacing.LoadProfile) float64 {
	switch lp.Pacing {
	case pacing.Linear:
		return max(lp.Rate, lp.EndRate)
	case pacing.Sine:
		return lp.Rate + lp.Amplitude
	case pacing.Stages:
		peak := 0.0
		for _, st := range lp.Stages {
			peak = max(peak, peakRate(st))
		}
		return peak
	}
	return lp.Rate
}
