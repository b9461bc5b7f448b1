// Package mutation measures the conformance run's strength by mutating the
// reference server: it makes one mechanical change of the reference's
// domain (reference/*.go) or HTTP glue (reference/httpapi/*.go) at a time,
// builds the changed server with go build -overlay, starts it with the
// embedded data set, and runs the conformance run against it. A mutant the
// run lets pass is either equivalent, a choice the API document leaves
// open, observable only under load, or a rule the run does not check; a
// person says which, in a classification file keyed by the mutant's
// identity (classes.go), and the report (docs/mutation.md) counts them.
//
// Every position is judged, in pieces if need be: the ledger
// (docs/mutation-ledger.jsonl) keeps each mutant's verdict with the hash
// of its file and of the killer, and a run tries only the mutants without
// a verdict under today's hashes (RunAll). A seeded sample (Run) stays for
// a quick look.
//
// The pieces, one noun a file: the mutants and their identity (mutant.go),
// their enumeration (enumerate.go), the seeded order they are tried in
// (sample.go), the overlay build (build.go), the started server
// (server.go), the killer commands (killer.go), a sample's run (run.go)
// and its record (record.go), the hashes a verdict is kept with
// (hash.go), the ledger (ledger.go), the whole enumeration's run
// (whole.go), the classification file (classes.go), the tally (score.go)
// and the reports of a sample (report.go) and of the ledger
// (report_whole.go).
//
// Why not gremlins (github.com/go-gremlins/gremlins, v0.5.0), the Go
// mutation tool we looked at: its engine and mutators are internal
// packages, which no program can import; its command enumerates positions
// only after a coverage run of go test, and judges each mutant with go
// test, where our killer is a conformance run against a served binary; and
// it swaps tokens only, without the message strings, integer constants,
// dropped error returns and negated non-comparison conditions this
// measurement needs. The enumerator here walks the syntax tree with go/ast
// and takes gremlins' token tables and operator names for the swaps it
// has.
package mutation
