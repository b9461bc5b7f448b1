package loadtest

import (
	"io"
	"time"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
)

// The options the tests set a setting with, one each.

func WithScenario(name string) Option             { return func(c *config) { c.Scenario = name } }
func WithLoad(lp pacing.LoadProfile) Option       { return func(c *config) { c.Load = lp } }
func WithPaymentMix(w Weights) Option             { return func(c *config) { c.PaymentMix = w.String() } }
func WithWaveSize(n int) Option                   { return func(c *config) { c.WaveSize = n } }
func WithMaxWorkers(n int) Option                 { return func(c *config) { c.MaxWorkers = n } }
func WithMaxConnections(n int) Option             { return func(c *config) { c.MaxConnections = n } }
func WithTimeout(d time.Duration) Option          { return func(c *config) { c.Timeout = d } }
func WithDrain(d time.Duration) Option            { return func(c *config) { c.Drain = d } }
func WithShard(s record.Shard) Option             { return func(c *config) { c.Shard = s } }
func WithRunID(id string) Option                  { return func(c *config) { c.RunID = id } }
func WithReconcile(on bool) Option                { return func(c *config) { c.NoReconcile = !on } }
func WithReconcileTimeout(d time.Duration) Option { return func(c *config) { c.ReconcileTimeout = d } }
func WithWhenDry(rule string) Option              { return func(c *config) { c.WhenDry = rule } }
func WithHistoryReads(every time.Duration) Option { return func(c *config) { c.HistoryReads = every } }

func WithHistory(on bool) Option {
	return func(c *config) {
		c.Check = ""
		if on {
			c.Check = record.CheckHistory
		}
	}
}

func WithRetry(retries int, timeout, backoff time.Duration) Option {
	return func(c *config) { c.Retries, c.RetryTimeout, c.RetryBackoff = retries, timeout, backoff }
}

func WithNemesis(s nemesis.Schedule, log io.Writer) Option {
	return func(c *config) { c.Nemesis, c.nemesisLog = s, log }
}

// Defaults the tests use.
var (
	DefaultRetries      = DefaultSettings().Retries
	DefaultRetryBackoff = DefaultSettings().RetryBackoff
	DefaultTimeout      = DefaultSettings().Timeout
	DefaultPaymentMix   = defaultPaymentMix
	DefaultOpMix        = defaultOpMix
)

func WithConn(conn transport.Options) Option { return func(c *config) { c.Conn = conn } }

func WithOps(mix string) Option { return func(c *config) { c.OpMix = mix } }

// SetsScenario reports whether opts set the scenario name.
func SetsScenario(opts []Option, name string) bool {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c.Scenario == name
}
