package record

import (
	"time"

	"github.com/partnercommerce/conformance/loadtest/nemesis"
)

// Meta describes a run (one shard): its settings, as the run resolved
// them (the worker cap, the run id, the payment mix it could pay with),
// the target, and when and how it ran.
type Meta struct {
	Settings
	Target string `json:"target"`
	// Insecure is set when the run did not verify the target's certificate
	// (--insecure-skip-verify): the sentence that says so.
	Insecure string    `json:"insecure,omitempty"`
	Began    time.Time `json:"began"`
	// Ended is the end of the attack (the drain included); ReconciledIn is
	// how long the reconciliation after it took.
	Ended time.Time `json:"ended"`
	// Reconciled is set when the reconciliation ran to its end: not when
	// the run had none, nor when the target stopped answering it
	// (ReconcileStopped).
	Reconciled   bool          `json:"reconciled"`
	ReconciledIn time.Duration `json:"reconciled_in,omitempty"`
	// ReconcileStopped says why the reconciliation stopped before its end
	// (the target did not answer); empty when it did not.
	ReconcileStopped string `json:"reconcile_stopped,omitempty"`
	// Faults are the faults the nemesis ran during the attack.
	Faults []nemesis.Fault `json:"faults,omitempty"`
	// Merged lists the shards combined by Merge; empty for one shard's run.
	Merged []Shard `json:"merged_shards,omitempty"`
}

// Gathered reports whether the run looked its ids up and read its wallets
// after the attack, to the end (Reconciled) or until the target stopped
// answering (ReconcileStopped): then the verdict reconciles what it has,
// and what it could not check is not reconciled.
func (m Meta) Gathered() bool { return m.Reconciled || m.ReconcileStopped != "" }

// Generator is how well the load generator kept up with its schedule.
type Generator struct {
	Planned      int64 `json:"planned"` // requests the pacer scheduled within the duration (0: max rate)
	Sent         int64 `json:"sent"`
	WorkerWaits  int64 `json:"worker_waits"`     // dispatches that found every worker busy at the cap
	ConnWaits    int64 `json:"connection_waits"` // requests started with every connection in use
	PeakWorkers  int64 `json:"peak_workers"`
	PeakInFlight int64 `json:"peak_in_flight"`
	// Sending is how long the generator kept sending: about the run's
	// duration when it kept up, up to a grace past it when a paced run fell behind (the
	// longest of the shards').
	Sending time.Duration `json:"sending"`
	// InterruptedAfter is when the attack was stopped (a signal) before its
	// duration; 0 when it was not.
	InterruptedAfter time.Duration `json:"interrupted_after,omitempty"`
	// StoppedDryAfter is when the attack stopped because a paying account
	// could afford nothing more (--when-dry stop); 0 when it did not.
	StoppedDryAfter time.Duration `json:"stopped_dry_after,omitempty"`
	// GatewayStopAfter is when the attack stopped because its answers so
	// far were mostly a gateway's, not the API's
	// (contract.MostlyGateway); 0 when it did not.
	GatewayStopAfter time.Duration `json:"gateway_stop_after,omitempty"`
	Abandoned        int64         `json:"abandoned"` // in-flight requests cut off at the drain timeout
	// BehindFrom and BehindUntil are the first and the last time, since
	// the attack began, that a send was more than ten times LateAfter late
	// or a hit waited for a worker at the cap; both 0 when the generator
	// never was behind.
	BehindFrom  time.Duration `json:"behind_from,omitempty"`
	BehindUntil time.Duration `json:"behind_until,omitempty"`
}

// Run is the record of a run, everything its attack produced: where the
// attack (the producer) and the verdicts and reports meet. Its results,
// ledger and history are in the files of its directory (for a merge, of
// the shards' directories), read one entry at a time; Tally counts them.
type Run struct {
	Meta      Meta              `json:"meta"`
	Generator Generator         `json:"generator"`
	Catalog   *Catalog          `json:"catalog,omitempty"`
	Accounts  []AccountSnapshot `json:"accounts"`
	// Funds is the plan of what the run spends against what the accounts
	// hold; nil when the wallets are not known.
	Funds *FundsPlan `json:"funds,omitempty"`
	// Tally counts the results and the ledger: what the reports read.
	Tally *Tally `json:"-"`
	parts []part
}

// part is a directory holding a run's files (results.bin, ledger.jsonl
// and, with the history check, history.jsonl), written by the shard shard.
type part struct {
	dir     string
	shard   int
	history bool
}

// Whole reports whether the run's ledger holds every shard of the run: a
// run on one machine, or a merge of every shard. Only then are accounts
// shared between shards reconciled.
func (run *Run) Whole() bool {
	return run.Meta.Shard.Count == 1 || len(run.Meta.Merged) == run.Meta.Shard.Count
}
