// Package loadtest is the load library of the conformance project: it drives
// a Partner Commerce API v2 server at a bounded rate for a bounded time,
// checks every response against the contract, and reconciles balances and
// coins afterwards.
//
// The library is modelled on vegeta's lib/: one noun per file. A Tester
// (tester.go, options.go) runs an engine (engine.go) that paces hits of a
// scenario (scenario.go: one type per scenario) built by a planner
// (planner.go, weights.go, ids.go, pacing.go) and sends them through a
// client (client.go, requests.go: the generated api.New*Request builders)
// to the server under test, whose catalog, accounts and wallets it reads
// (catalog.go, accounts.go, wallet.go). Answers are checked against the
// document through internal/contract (checks.go) and gathered as results,
// progress and a ledger (result.go, progress.go, ledger.go) by a recorder
// (record.go) that streams them to the run's files and counts them in a
// Tally of fixed size (tally.go: histogram.go's latency histograms,
// timeline.go's chart buckets, errorset.go's bounded error set), so that
// a run's memory does not grow with its length; after the
// attack the created payments are looked up (lookups.go) and reconciled
// (invariants.go); history.go and historycheck.go record every operation
// and check the history for linearizability. Reports, the error set, exhaustion, thresholds, merges
// and the run directory follow (report.go, errorset.go, exhaustion.go,
// thresholds.go, merge.go, artifacts.go). Producers (the attack) and
// reporters meet only at the Outcome type (outcome.go); options are functional options; the library never
// prints (progress is a callback) and is cancelled through its context.
//
// Latency is measured from the moment a request was scheduled by the pacer,
// not from the moment a worker got to it, so that a stalled generator or
// server cannot hide queueing delay (coordinated omission). Raw figures
// (from the actual send) are reported next to the corrected ones.
//
// Every result is also a vegeta.Result, so the results file the recorder
// streams (or WriteArtifacts writes) can be read by `vegeta report` and
// `vegeta plot`.
package loadtest
