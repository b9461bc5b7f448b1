package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// flagGroup is a heading of --help and the flags listed under it.
type flagGroup struct {
	title string
	names []string
}

// runGroups orders the flags of a run for --help. Every flag belongs to a
// group (a test keeps it so).
var runGroups = []flagGroup{
	{"Target", []string{"target", "profile", "reference-fault", "ca-cert", "client-cert", "client-key", "insecure-skip-verify", "H", "header", "wait-for-target"}},
	{"Load shape (rates are requests per second in every scenario)", []string{"rate", "duration", "pacing", "end-rate",
		"amplitude", "period", "start-at", "load-profile", "max-workers", "max-connections", "timeout", "drain", "late"}},
	{"Scenario", []string{"scenario", "mix", "ops", "wave-size", "products", "when-dry", "retries", "retry-timeout", "retry-backoff"}},
	{"Thresholds (the run fails when one fails; latencies are corrected for coordinated omission unless raw)", thresholdNames},
	{"Reconciliation", []string{"no-reconcile", "reconcile-timeout", "check", "history-timeout", "history-reads", "strict"}},
	{"Faults (a nemesis, as Jepsen's)", []string{"nemesis"}},
	{"Distributed runs", []string{"shard", "run-id"}},
	{"Output", []string{"out", "junit", "quiet", "log-level", "prometheus-addr"}},
}

// thresholdNames are the flags thresholdFlags registers.
var thresholdNames = func() []string {
	var names []string
	for _, m := range []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"} {
		names = append(names, "max-"+m)
	}
	for _, m := range []string{"p50", "p90", "p95", "p99", "p999", "max", "mean"} {
		names = append(names, "max-raw-"+m)
	}
	return append(names, "min-success", "min-expected", "max-server-errors", "max-errors", "max-duplicate-debits",
		"max-uncertain", "max-throttled-pct", "max-late-sends", "min-achieved-rate", "threshold")
}()

const runHelpIntro = `Usage:
  loadtest [flags]                 load-test a server (with no --target: the embedded reference)
  loadtest merge [flags] DIR...    merge the output directories of the shards of one run
  loadtest --version

loadtest sends payment creations (and, in the mixed scenario, reads) at a
bounded rate for a bounded time, checks every answer against the API
document, reconciles every paying account afterwards, and writes a text and
a JSON report, vegeta's results file and an HTML latency plot.
`

const runHelpExamples = `Examples:
  # A 10 s demonstration against the embedded reference:
  loadtest

  # 200 payments a second for 30 s; fail above 50 ms at p99 or on any double debit:
  loadtest --target http://127.0.0.1:8080 --profile profiles/reference.yaml \
    --scenario create --rate 200 --duration 30s --max-p99 50ms --max-duplicate-debits 0

  # Idempotency: 320 requests a second as 10 waves of 32 identical payments:
  loadtest --scenario idempotency --rate 320/1s --wave-size 32

  # Retries after lost answers, and a linearizability check of every account's history:
  loadtest --scenario retry --retry-timeout 100ms --check history --max-uncertain 100

  # Faults during the attack (a nemesis): kill the server every 4 s (its supervisor
  # restarts it), pause another for 2 s; the verdict names what was lost or doubled:
  loadtest --scenario retry --duration 30s \
    --nemesis 'every 4s from 2s shell name kill-9: kill -KILL $(cat server.pid)' \
    --nemesis 'at 20s for 2s name pause: kill -STOP 4242 ;; kill -CONT 4242'

  # In CI, against a staging server over HTTPS with a private CA and mutual TLS,
  # behind a gateway that wants its own header, started in the same job:
  loadtest --target https://staging.example.com --profile staging.yaml \
    --ca-cert ca.pem --client-cert client.pem --client-key client-key.pem \
    -H 'X-Gateway-Key: abc' --wait-for-target 60s

  # A multi-stage load (warm up, ramp, hold, as k6's stages); see the commented file:
  loadtest --load-profile profiles/load/stages.yaml --scenario mixed

  # Two machines, one run, then one report:
  loadtest --shard 0/2 --run-id nightly1    # on machine 1
  loadtest --shard 1/2 --run-id nightly1    # on machine 2
  loadtest merge reports/load/nightly1/shard-0-of-2 reports/load/nightly1/shard-1-of-2

Environment: LOADTEST_TARGET, LOADTEST_PROFILE, LOADTEST_SHARD, LOADTEST_RUN_ID
and LOADTEST_OUT are the defaults of --target, --profile, --shard, --run-id
and --out.

Exit status: 0 pass, 1 an invariant or threshold failed, 2 the run could not
be carried out (usage, profile, target), 130 interrupted by SIGINT or 143 by
SIGTERM (what was sent is still checked and reconciled).
`

// groupedUsage returns a FlagSet.Usage that prints intro, fs's flags under
// the headings of groups (any flag not listed under "Other"), and outro.
func groupedUsage(fs *flag.FlagSet, w io.Writer, intro string, groups []flagGroup, outro string) func() {
	return func() {
		var b strings.Builder
		b.WriteString(intro)
		listed := map[string]bool{}
		write := func(title string, names []string) {
			var body strings.Builder
			for _, name := range names {
				f := fs.Lookup(name)
				if f == nil || listed[name] {
					continue
				}
				listed[name] = true
				kind, usage := flag.UnquoteUsage(f)
				if _, ok := f.Value.(*rate); ok {
					kind = "rate"
				}
				fmt.Fprintf(&body, "  --%s", f.Name)
				if kind != "" {
					fmt.Fprintf(&body, " %s", kind)
				}
				fmt.Fprintf(&body, "\n      %s", usage)
				if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "[]" {
					fmt.Fprintf(&body, " (default %s)", f.DefValue)
				}
				body.WriteString("\n")
			}
			if body.Len() > 0 {
				fmt.Fprintf(&b, "\n%s:\n%s", title, body.String())
			}
		}
		for _, g := range groups {
			write(g.title, g.names)
		}
		var rest []string
		fs.VisitAll(func(f *flag.Flag) {
			if !listed[f.Name] {
				rest = append(rest, f.Name)
			}
		})
		write("Other", rest)
		if outro != "" {
			b.WriteString("\n" + outro)
		}
		_, _ = io.WriteString(w, b.String())
	}
}

// mergeGroups orders the flags of loadtest merge for --help.
var mergeGroups = []flagGroup{
	{"Merge", []string{"out", "junit", "partial", "strict"}},
	{"Thresholds (as for a run)", thresholdNames},
}

const mergeHelpIntro = `Usage:
  loadtest merge [flags] SHARD-DIR...

Merges the output directories of the shards of one distributed run (the
same --run-id, --shard 0/n to n-1/n) into one report: results and ledgers
are combined, percentiles recomputed from every result, and accounts shared
between shards reconciled once all shards are in.
`

const mergeHelpExamples = `Example:
  loadtest merge --max-p99 50ms reports/load/nightly1/shard-0-of-2 reports/load/nightly1/shard-1-of-2
`
