// Package perf measures the reference server and the load tester against
// baselines on loopback, the way `make perf` runs them: in alternating
// rounds, so that what it reports are ratios taken in one run, which carry
// from machine to machine where absolute figures do not.
//
// It compares POST /client/v2/payment on the reference with a static-JSON
// net/http handler (static.go) and the reference with --state with itself
// in memory (durable.go), measures the process memory and throughput
// of the reference as payments accumulate (stored.go), and drives our load
// tester and the vegeta CLI against the same cheap target (target.go,
// generator.go), for their rate, latency, CPU and the growth of their
// memory with a run's length, and the load tester over a long soak
// (memory.go). Servers run as child processes (process.go); the client is
// wrk when it is installed and a Go client otherwise (client.go).
package perf
