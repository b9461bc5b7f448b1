// Package loadtest is the load library of the conformance project: it drives
// a Partner Commerce API v2 server at a bounded rate for a bounded time,
// checks every response against the contract, and records the run. The
// verdicts and the reports are computed from the record afterwards, the way
// vegeta's plot sits above the results its lib/ records.
//
// The rooms, one purpose each:
//   - loadtest (this package) runs an attack and records it. A Tester
//     (tester.go, options.go) runs an engine (engine.go, workercap.go,
//     retry.go, progress.go) that paces hits of a scenario (scenario.go: one
//     type per scenario) built by a planner (planner.go, weights.go, ids.go)
//     and sends them through a client (client.go, requests.go: the
//     generated api.New*Request builders) to the server under test, whose
//     catalog and accounts it reads (catalog.go, accounts.go: what each
//     account can still spend). Answers are checked against the document
//     through internal/contract (checks.go), and a sample of them against
//     openapi.yaml's schema by its validator. After the attack the created
//     payments are looked up (lookups.go, lookupfile.go) and the wallets
//     read again: gathering what the verdicts need is part of recording the
//     run. history.go reads the wallets during
//     the attack for the history check; faults.go runs the nemesis.
//   - loadtest/pacing: the load profile and its pacers (constant, linear,
//     sine, stages).
//   - loadtest/record: what a run writes down (record.Run): its results and
//     ledger entries, streamed to the run's files (results.bin,
//     ledger.jsonl, shard.json) and counted in a Tally of fixed size (latency
//     histograms, the charts' timeline, a bounded error set, the overlap
//     the rules that need requests in flight together got), so that a
//     run's memory does not grow with its length; the history of operations,
//     streamed to history.jsonl the same way;
//     Merge of the shards of a distributed run.
//   - loadtest/verdict: what the checks conclude from a record
//     (verdict.Judge): the reconciliation of the ledger with the wallets and
//     its classes of violation (a check resting on a reading of the
//     document is a warning, a failure when Verdicts.Strict), the accounts'
//     exhaustion, the history (linearizability) check.
//   - loadtest/report: the text, JSON, HTML and JUnit reports (each a
//     Writer) with their charts, thresholds, classes and the rules not
//     exercised (Exercise), and the run directory (WriteArtifacts).
//   - loadtest/nemesis: the fault schedule run during an attack.
//
// A caller runs Tester.Run, judges its record with verdict.Judge, then
// builds the report (report.BuildReport) and writes it (cmd/loadtest's
// finish). Options are functional options; the library never prints
// (progress is a callback) and is cancelled through its context.
//
// Latency is measured from the moment a request was scheduled by the pacer,
// not from the moment a worker got to it, so that a stalled generator or
// server cannot hide queueing delay (coordinated omission). Raw figures
// (from the actual send) are reported next to the corrected ones.
//
// Every result is also a vegeta.Result, so the results file the recorder
// streams (or record.WriteDir writes) can be read by `vegeta report` and
// `vegeta plot`.
package loadtest
