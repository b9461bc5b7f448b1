// Package loadtest is the load library of the conformance project: it drives
// a Partner Commerce API v2 server at a bounded rate for a bounded time,
// checks every response against the contract, and reconciles balances and
// coins afterwards.
//
// The library is modelled on vegeta's lib/: one noun per file (ids, pacing,
// targets, scenarios, attack, checks, ledger, invariants, latency, report,
// thresholds, merge, artifacts). Producers (the attack) and reporters meet
// only at the Outcome type; options are functional options; the library never
// prints (progress is a callback) and is cancelled through its context.
//
// Latency is measured from the moment a request was scheduled by the pacer,
// not from the moment a worker got to it, so that a stalled generator or
// server cannot hide queueing delay (coordinated omission). Raw figures
// (from the actual send) are reported next to the corrected ones.
//
// Every result is also a vegeta.Result, so the results file written by
// WriteArtifacts can be read by `vegeta report` and `vegeta plot`.
package loadtest
