package record

import (
	"time"

	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
)

// Settings are what a run is asked to do, as a run's meta records them. A
// setting is one field here: its key in shard.json and in a load profile
// file (json, yaml), the flag of cmd/loadtest that sets it (flag, which
// defines the flags from these tags) and that flag's help (help); the
// load's flags are those of pacing.LoadProfile. loadtest.DefaultSettings
// gives each its default, and a load profile file and then the flags
// layer onto them, as k6's options do.
type Settings struct {
	Scenario string             `json:"scenario" yaml:"scenario" flag:"scenario" help:"scenario: create, idempotency, mixed or retry"`
	Load     pacing.LoadProfile `json:"load" yaml:",inline"`
	// PaymentMix and OpMix are weights, written "a=3,b=1".
	PaymentMix string `json:"payment_mix" yaml:"mix" flag:"mix" help:"payment kinds and weights: balance, coins, gateway"`
	OpMix      string `json:"op_mix,omitempty" yaml:"ops" flag:"ops" help:"mixed scenario: operations and weights: create, status, list, sync, wave (a hit of --wave-size creations with one partner_trx_id, sent at once)"`
	WaveSize   int    `json:"wave_size,omitempty" yaml:"wave_size" flag:"wave-size" help:"idempotency, and the mixed scenario's waves: concurrent requests per partner_trx_id"`
	Products   string `json:"products,omitempty" yaml:"products" flag:"products" help:"pay only for these products: ids or sub categories, comma separated (1001,1002 or prabayar)"`
	WhenDry    string `json:"when_dry" yaml:"when_dry" flag:"when-dry" help:"when the load customers can afford no product: continue (send anyway; the refusals are reported as exhaustion), gateway (pay the rest through gateways) or stop (end the attack)"`

	Retries      int           `json:"retries,omitempty" yaml:"retries" flag:"retries" help:"retry scenario: sends of a payment after its first whose answer was lost"`
	RetryTimeout time.Duration `json:"retry_timeout,omitempty" yaml:"retry_timeout" flag:"retry-timeout" help:"retry scenario: the short client timeout of each send of a payment"`
	RetryBackoff time.Duration `json:"retry_backoff,omitempty" yaml:"retry_backoff" flag:"retry-backoff" help:"retry scenario: the wait before the first retry, doubled before each next"`

	MaxWorkers     int           `json:"max_workers" yaml:"max_workers" flag:"max-workers" help:"cap on concurrent requests of the generator (0: the peak rate × --timeout, between 64 and 5,000: a run that falls behind waits for a worker and says so; a max-rate run, --rate 0, needs one)"`
	MaxConnections int           `json:"max_connections" yaml:"max_connections" flag:"max-connections" help:"cap on connections to the target (0: none, connections scale with the requests in flight)"`
	Timeout        time.Duration `json:"timeout" yaml:"timeout" flag:"timeout" help:"per-request timeout"`
	Drain          time.Duration `json:"drain" yaml:"drain" flag:"drain" help:"how long in-flight requests may finish after the duration"`
	LateAfter      time.Duration `json:"late_after" yaml:"late_after" flag:"late" help:"a send later than this after its scheduled time counts as late"`

	Shard Shard  `json:"shard" yaml:"shard" flag:"shard" help:"this machine's shard i/n of a distributed run"`
	RunID string `json:"run_id" yaml:"run_id" flag:"run-id" help:"run id shared by all shards (required with --shard n > 1; [a-z0-9], ≤ 20)"`

	NoReconcile      bool          `json:"no_reconcile,omitempty" yaml:"no_reconcile" flag:"no-reconcile" help:"skip the status look-ups and wallet reconciliation"`
	ReconcileTimeout time.Duration `json:"reconcile_timeout" yaml:"reconcile_timeout" flag:"reconcile-timeout" help:"bound on the reconciliation; what it has not checked by then fails"`
	Check            string        `json:"check,omitempty" yaml:"check" flag:"check" help:"extra checks after the run: history (record every operation, read the profiles during the attack, and check per account that some serial order of the payments explains every read; create, mixed and retry)"`
	HistoryReads     time.Duration `json:"history_reads,omitempty" yaml:"history_reads" flag:"history-reads" help:"with --check history: how often each account's profile is read during the attack (0: about one read for every five requests)"`

	PrometheusAddr string `json:"prometheus_addr,omitempty" yaml:"prometheus_addr" flag:"prometheus-addr" help:"serve live metrics on http://ADDR/metrics (OpenMetrics) from the attack until the report is written: vegeta's lib/prom metrics and the tester's own (loadtest/live; deploy/grafana/loadtest.json is a dashboard over them)"`

	// Nemesis is the fault schedule run during the attack; the meta
	// records the faults it ran (Meta.Faults).
	Nemesis nemesis.Schedule `json:"-" yaml:"nemesis" flag:"nemesis" help:"a fault run during the attack, repeatable: WHEN: COMMAND, e.g. 'every 5s from 2s: systemctl restart payments', 'at 3s for 2s: kill -STOP 4242 ;; kill -CONT 4242' (the command after ;; ends the fault); before the colon also until T, timeout D (default 10s), shell (run with sh -c), name NAME; commands run without a shell unless asked, their output in nemesis.log; the load profile's nemesis: list comes first"`

	// Conn is how the run reaches the target beyond its URL: the TLS it
	// speaks, the headers of -H, the wait for the target (the flags of
	// package transport, the same in the three tools). The meta records
	// only whether the certificate went unverified (Meta.Insecure).
	Conn transport.Options `json:"-" yaml:"-"`
}

// CheckHistory is the Check that records the history and checks it.
const CheckHistory = "history"
