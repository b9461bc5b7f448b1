package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// Generator health limits: below these the report says the generator, not
// the server, was the limit.
const (
	minAchievedPct = 95.0 // sent / planned
	maxLatePct     = 5.0  // late sends / sends
)

// DefaultMaxUncertainPct is the share of requests (percent) that may go
// unanswered within the timeout before a run fails, unless a threshold on
// uncertain_pct says otherwise.
const DefaultMaxUncertainPct = 1.0

// DefaultMaxServerErrorsPct is the share of requests (percent) that may
// get a server error (a 5xx of the API, or no readable answer) before a
// run fails, unless a threshold on server_errors says otherwise. The
// requests without an answer count among the server errors, so a
// threshold on uncertain_pct above it raises it as far.
const DefaultMaxServerErrorsPct = 1.0

// Report is the summary of a run or of a merge of shards: what report.json
// holds. Units are in the names: *_pct fields are percentages (0–100),
// durations are nanoseconds (Go's time.Duration), times are RFC 3339, rates
// are requests per second; everything else is a count of requests.
type Report struct {
	// Units says how to read the numbers below.
	Units    Units  `json:"units"`
	RunID    string `json:"run_id"`
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	// Insecure is set when the run did not verify the target's certificate
	// (--insecure-skip-verify): the sentence that says so.
	Insecure string         `json:"insecure,omitempty"`
	Shards   []record.Shard `json:"shards"`
	Load     string         `json:"load"`
	Began    time.Time      `json:"began"`
	Ended    time.Time      `json:"ended"`
	// ReconciledIn is how long the reconciliation after the attack took;
	// ReconcileStopped says why it stopped early (the target did not answer).
	ReconciledIn     time.Duration `json:"reconciled_in,omitempty"`
	ReconcileStopped string        `json:"reconcile_stopped,omitempty"`
	// Interrupted is true when the run was stopped before its duration
	// (a signal): it is never a pass.
	Interrupted bool `json:"interrupted"`
	// Faults are the faults the nemesis ran during the attack.
	Faults []nemesis.Fault `json:"faults,omitempty"`
	// Verdict sums up what went wrong by class, in the order the reports
	// lead with (lost writes, resurrected payments, duplicate debits,
	// wallet mismatches, uncertain requests, not reconciled, contract
	// violations, other invariants); violations.jsonl lists every id.
	Verdict []ClassLine `json:"verdict,omitempty"`
	// Findings are what the run found wrong, one per defect, each with the
	// sentence of the document, a request and its answer, and the
	// consequences it explains: the story a failed report leads with.
	Findings []Finding `json:"findings,omitempty"`
	// Incomplete says why the run gave no verdict on the API: its answers
	// were mostly a gateway's (contract.MostlyGateway), or, when nothing
	// failed, a rule that needs overlap was not exercised (Exercises); ""
	// otherwise. An incomplete run neither passes nor fails (the tools
	// exit 2).
	Incomplete string `json:"incomplete,omitempty"`
	// Exercises are the rules that need requests in flight together, each
	// with the overlap the run reached for it.
	Exercises []Exercise `json:"overlap,omitempty"`

	Requests int `json:"requests"`
	// Expected counts the answers the scenario expects (a created payment;
	// in a wave, created or 409; 200 for reads); SuccessPct is their share.
	Expected   int     `json:"expected"`
	SuccessPct float64 `json:"success_pct"`
	// Allowed counts the answers the document allows: the expected ones and
	// documented refusals (such as 422 for an empty wallet). ServerErrors
	// counts 5xx answers and requests without a readable answer.
	Allowed         int     `json:"allowed"`
	AllowedPct      float64 `json:"allowed_pct"`
	ServerErrors    int     `json:"server_errors"`
	ServerErrorsPct float64 `json:"server_errors_pct"`
	Uncertain       int     `json:"uncertain"`
	UncertainPct    float64 `json:"uncertain_pct"`
	// NotDelivered counts requests that never reached the server (no
	// connection could be made): certainly not processed, so never
	// uncertain; they are server errors all the same.
	NotDelivered int `json:"not_delivered"`
	// Throttled counts the answers the target throttled (a 429, or a 503
	// with Retry-After): refused for the rate, not processed; allowed,
	// never server errors nor contract violations. ThrottledPct is their
	// share (the threshold metric throttled_pct, --max-throttled-pct).
	Throttled    int     `json:"throttled"`
	ThrottledPct float64 `json:"throttled_pct"`
	// Gateway counts the answers a gateway in front of the target gave
	// instead of the API (an HTML page, or text with a proxy's Server
	// header): neither allowed, nor contract violations, nor server
	// errors of the API; each distinct page is a finding.
	Gateway     int                       `json:"gateway"`
	StatusCodes map[string]int            `json:"status_codes"`
	Ops         map[string]record.OpStats `json:"ops"`
	// Errors is the error set: each distinct unexpected answer with its
	// count and an example request, most frequent first.
	Errors []record.ErrorEntry `json:"errors"`
	// Exhaustion is set when balance or coin payments were refused because
	// the paying accounts ran dry (a correct answer, not a server failure).
	Exhaustion *verdict.Exhaustion `json:"exhaustion,omitempty"`
	// Funds is the plan of what the run would spend against what the
	// paying accounts held before it (see FundsPlan).
	Funds *record.FundsPlan `json:"funds,omitempty"`

	// Corrected latency runs from the scheduled send time; Raw from the
	// actual send time (what vegeta reports).
	Corrected record.Latencies `json:"latency_corrected"`
	Raw       record.Latencies `json:"latency_raw"`
	// Percentiles says how every latency figure was computed
	// (record.PercentileMethod).
	Percentiles string `json:"percentiles"`

	Contract       ContractSummary         `json:"contract"`
	Reconciliation *verdict.Reconciliation `json:"reconciliation,omitempty"`
	History        *verdict.HistoryCheck   `json:"history,omitempty"`
	Generator      GeneratorHealth         `json:"generator"`
	Thresholds     []ThresholdResult       `json:"thresholds"`

	// Strict is a strict run's (--strict): a warning (a check resting on a
	// reading, Reconciliation.Warnings) fails it.
	Strict   bool     `json:"strict,omitempty"`
	Passed   bool     `json:"passed"`
	Failures []string `json:"failures"`
}

// Units names the units of report.json's numbers.
type Units struct {
	Durations   string `json:"durations"`
	Rates       string `json:"rates"`
	Percentages string `json:"percentages"`
	Times       string `json:"times"`
	Counts      string `json:"counts"`
}

// reportUnits are the units every report uses.
var reportUnits = Units{
	Durations:   "nanoseconds (fields of type duration: latencies, lateness, timeout, drain)",
	Rates:       "requests per second (target_rate, achieved_rate)",
	Percentages: "percent, 0 to 100 (fields ending in _pct)",
	Times:       "RFC 3339 with nanoseconds, UTC",
	Counts:      "requests (every other number), except balance fields (rupiah) and coin fields (coins)",
}

// ContractSummary counts responses that broke the contract, with examples.
type ContractSummary struct {
	Violations int            `json:"violations"`
	ByRule     map[string]int `json:"by_rule"`
}

// GeneratorHealth is the generator's self-assessment: its figures, the
// settings they are held to, and how late it sent.
type GeneratorHealth struct {
	record.Generator
	MaxWorkers     int           `json:"max_workers"`
	MaxConnections int           `json:"max_connections"`
	Duration       time.Duration `json:"duration"` // the run's configured duration
	LateAfter      time.Duration `json:"late_after"`
	// Late counts the sends more than LateAfter after their scheduled
	// time; MaxLateness and Lateness are how late every send was.
	Late         int64            `json:"late"`
	MaxLateness  time.Duration    `json:"max_lateness"`
	Lateness     record.Latencies `json:"lateness"`
	TargetRate   float64          `json:"target_rate"`   // planned / duration (0: max rate)
	AchievedRate float64          `json:"achieved_rate"` // sent / the sending time (at least the duration)
	AchievedPct  float64          `json:"achieved_pct"`  // sent / planned
	LatePct      float64          `json:"late_pct"`
	Limited      bool             `json:"limited"`
	// HeldByServer is true when the limits were reached because the server
	// did not answer: the workers and connections waited on it.
	HeldByServer bool     `json:"held_by_server"`
	Reasons      []string `json:"reasons,omitempty"`
	// FellBehind says how a paced run fell behind its schedule, and when;
	// "" when it kept it.
	FellBehind string `json:"fell_behind,omitempty"`
}

// assess decides whether the generator, rather than the server, limited
// the run, from h's generator figures and lateness.
func assess(h GeneratorHealth, shards int) GeneratorHealth {
	g := &h
	secs := g.Duration.Seconds()
	if secs > 0 {
		h.TargetRate = float64(g.Planned) / secs
		h.AchievedRate = float64(g.Sent) / secs
	}
	if g.Planned > 0 && g.Sending > g.Duration {
		// A paced run that fell behind kept sending for a grace past its
		// duration: its rate is the sends over the time it really sent. (A
		// max-rate run stops at its duration.)
		h.AchievedRate = float64(g.Sent) / g.Sending.Seconds()
	}
	if g.InterruptedAfter > 0 {
		// Stopped early: the rate is the one achieved until then, and the
		// hits not sent are the interruption's, not the generator's.
		h.AchievedRate = float64(g.Sent) / g.InterruptedAfter.Seconds()
	}
	offSchedule := false // sent short of the schedule, or too many sends late
	if g.Planned > 0 {
		h.AchievedPct = 100 * float64(g.Sent) / float64(g.Planned)
		if h.AchievedPct < minAchievedPct && g.InterruptedAfter == 0 && g.StoppedDryAfter == 0 && g.GatewayStopAfter == 0 {
			offSchedule = true
			h.Reasons = append(h.Reasons, fmt.Sprintf("sent %d of %d scheduled requests (%.1f%% < %.0f%%)", g.Sent, g.Planned, h.AchievedPct, minAchievedPct))
		}
	} else {
		h.Reasons = append(h.Reasons, fmt.Sprintf("max-rate run: the caps set the rate (--max-workers %s, --max-connections %s)",
			readable.Cap(g.MaxWorkers*shards), readable.Cap(g.MaxConnections*shards)))
	}
	if g.Sent > 0 {
		h.LatePct = 100 * float64(h.Late) / float64(g.Sent)
		if g.Planned > 0 && h.LatePct > maxLatePct {
			offSchedule = true
			h.Reasons = append(h.Reasons, fmt.Sprintf("%.1f%% of sends were more than %s late (worst %s)", h.LatePct, g.LateAfter, h.MaxLateness.Round(time.Microsecond)))
		}
	}
	if g.WorkerWaits > 0 {
		h.Reasons = append(h.Reasons, fmt.Sprintf("all %d workers were busy %d times (--max-workers)", g.MaxWorkers*shards, g.WorkerWaits))
	}
	if g.ConnWaits > 0 {
		h.Reasons = append(h.Reasons, fmt.Sprintf("all %d connections were in use %d times (--max-connections)", g.MaxConnections*shards, g.ConnWaits))
	}
	h.Limited = len(h.Reasons) > 0
	h.FellBehind = fellBehind(h, offSchedule)
	return h
}

// BuildReport summarises the record of a run with the verdicts on it (nil:
// none) and evaluates the thresholds.
func BuildReport(run *record.Run, v *verdict.Verdicts, thresholds []Threshold) *Report {
	if v == nil {
		v = &verdict.Verdicts{}
	}
	rep := &Report{
		Units: reportUnits,
		RunID: run.Meta.RunID, Scenario: run.Meta.Scenario, Target: run.Meta.Target, Insecure: run.Meta.Insecure, Load: run.Meta.Load.String(),
		Began: run.Meta.Began, Ended: run.Meta.Ended,
		Ops:            map[string]record.OpStats{},
		Contract:       ContractSummary{ByRule: map[string]int{}},
		Reconciliation: v.Reconciliation,
		History:        v.History,
		Strict:         v.Strict,
	}
	rep.Shards = []record.Shard{run.Meta.Shard}
	if len(run.Meta.Merged) > 0 {
		rep.Shards = run.Meta.Merged
	}
	t := run.Tally
	rep.Requests = t.Requests()
	sum := t.Totals()
	rep.Expected, rep.Allowed, rep.ServerErrors, rep.Uncertain = sum.Expected, sum.Allowed, sum.ServerErrors, sum.Uncertain
	rep.NotDelivered, rep.Throttled, rep.Gateway = sum.NotDelivered, sum.Throttled, sum.Gateway
	rep.Contract.Violations = t.Violations
	maps.Copy(rep.Contract.ByRule, t.ByRule)
	rep.StatusCodes = t.StatusCodes()
	for name, op := range t.Ops {
		rep.Ops[name] = op.Stats()
	}
	rep.Corrected, rep.Raw = t.Corrected(), t.Raw()
	rep.Percentiles = record.PercentileMethod
	cv := CountValues(sum, t.Violations, t.Late, int(run.Generator.Sent))
	rep.SuccessPct, rep.AllowedPct = cv["success"], cv["allowed"]
	rep.ServerErrorsPct, rep.UncertainPct, rep.ThrottledPct = cv["server_errors"], cv["uncertain_pct"], cv["throttled_pct"]
	rep.Interrupted = run.Generator.InterruptedAfter > 0
	rep.Errors = t.Errors.Set()
	rep.Exhaustion = verdict.ExhaustionOf(run, &t.Refusals)
	rep.Funds = run.Funds
	lateness, m := t.Lateness(), run.Meta
	rep.Generator = assess(GeneratorHealth{Generator: run.Generator, MaxWorkers: m.MaxWorkers, MaxConnections: m.MaxConnections, Duration: m.Load.Duration,
		LateAfter: m.LateAfter, Late: int64(t.Late), MaxLateness: lateness.Max, Lateness: lateness}, len(rep.Shards))
	rep.Generator.HeldByServer = rep.Generator.Limited && rep.Uncertain > 0
	rep.Faults, rep.ReconciledIn, rep.ReconcileStopped = run.Meta.Faults, run.Meta.ReconciledIn, run.Meta.ReconcileStopped
	rep.Exercises = exercisesOf(&t.Overlap, v.Reconciliation != nil || v.History != nil)
	rep.summarize(run.Meta.Faults, run.Meta.Began)
	rep.finish(thresholds)
	return rep
}

// summarize sums rep up: its classes (Verdict), its findings, and whether
// it is incomplete. faults and began place the ids in the run's faults.
func (rep *Report) summarize(faults []nemesis.Fault, began time.Time) {
	rep.Verdict = classLines(rep, faults, began)
	rep.Findings = findings(rep, faults, began)
	rep.Incomplete = rep.incomplete()
}

// incomplete says why rep gave no verdict on the API: its attack stopped,
// or ended, with answers that were mostly a gateway's; "" otherwise.
func (rep *Report) incomplete() string {
	answered := rep.Requests - rep.Uncertain - rep.NotDelivered
	if rep.Generator.GatewayStopAfter == 0 && !contract.MostlyGateway(rep.Gateway, answered) {
		return ""
	}
	for _, e := range rep.Errors {
		if g, ok := gatewayOf(e); ok {
			err := &contract.GatewayError{Gateway: g, Count: rep.Gateway, Of: answered}
			s := err.Error()
			if d := rep.Generator.GatewayStopAfter; d > 0 {
				s += fmt.Sprintf(" (the attack stopped after %s: the answers were mostly the gateway's, so the run judged nothing of the API)", readable.Duration(d))
			}
			return s
		}
	}
	return fmt.Sprintf("a gateway answered %d of %d requests, not the API", rep.Gateway, answered)
}

// values returns the metrics thresholds can refer to.
func (rep *Report) values() map[string]float64 {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	sum := record.OpStats{Requests: rep.Requests, Expected: rep.Expected, Allowed: rep.Allowed, ServerErrors: rep.ServerErrors,
		Uncertain: rep.Uncertain, Throttled: rep.Throttled}
	v := CountValues(sum, rep.Contract.Violations, int(rep.Generator.Late), int(rep.Generator.Sent))
	for name, d := range map[string]time.Duration{
		"p50": rep.Corrected.P50, "p90": rep.Corrected.P90, "p95": rep.Corrected.P95,
		"p99": rep.Corrected.P99, "p999": rep.Corrected.P999, "max": rep.Corrected.Max, "mean": rep.Corrected.Mean,
		"raw_p50": rep.Raw.P50, "raw_p90": rep.Raw.P90, "raw_p95": rep.Raw.P95,
		"raw_p99": rep.Raw.P99, "raw_p999": rep.Raw.P999, "raw_max": rep.Raw.Max, "raw_mean": rep.Raw.Mean,
	} {
		v[name] = ms(d)
	}
	v["achieved_rate"] = rep.Generator.AchievedPct
	if r := rep.Reconciliation; r != nil {
		v["duplicate_debits"] = float64(r.Duplicates)
		v["invariant_violations"] = float64(r.ViolationCount())
	}
	return v
}

// CountValues are the threshold metrics that counts of answers measure,
// named as report.json's: of sum.Requests answers, the shares (percent)
// expected, allowed, server errors, uncertain and throttled, and the
// counts of unexpected answers, contract violations (violations) and
// uncertain requests; late_sends is late of sent sends. A report reads
// them from its run's tally; the live metrics read them from the tally
// as the run goes. With no request, the shares are 0.
func CountValues(sum record.OpStats, violations, late, sent int) map[string]float64 {
	pct := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	return map[string]float64{
		"success":             pct(sum.Expected, sum.Requests),
		"allowed":             pct(sum.Allowed, sum.Requests),
		"server_errors":       pct(sum.ServerErrors, sum.Requests),
		"uncertain_pct":       pct(sum.Uncertain, sum.Requests),
		"throttled_pct":       pct(sum.Throttled, sum.Requests),
		"late_sends":          pct(late, sent),
		"errors":              float64(sum.Requests - sum.Expected),
		"contract_violations": float64(violations),
		"uncertain":           float64(sum.Uncertain),
	}
}

// defaultThresholds are the thresholds every run is held to unless the
// caller, whose thresholds are given, sets one on the same metric: the
// requests without an answer (uncertain_pct) and the server errors
// (server_errors), which count them too and so allow at least as many.
func defaultThresholds(given []Threshold) []Threshold {
	uncertain, serverErrors := DefaultMaxUncertainPct, DefaultMaxServerErrorsPct
	for _, th := range given {
		if th.Metric == "uncertain_pct" && th.Op == "<=" {
			serverErrors = max(serverErrors, th.Value)
		}
	}
	return []Threshold{
		{Metric: "uncertain_pct", Op: "<=", Value: uncertain, Expr: fmt.Sprintf("uncertain_pct<=%g%%", uncertain)},
		{Metric: "server_errors", Op: "<=", Value: serverErrors, Expr: fmt.Sprintf("server_errors<=%g%%", serverErrors)},
	}
}

// finish evaluates thresholds and invariants and sets Passed and Failures.
func (rep *Report) finish(thresholds []Threshold) {
	rep.Failures = nil
	rep.Thresholds = nil
	if rep.Interrupted {
		rep.Failures = append(rep.Failures, fmt.Sprintf("INTERRUPTED after %s: the requests sent were checked and reconciled, but an interrupted run is not a pass",
			rep.Generator.InterruptedAfter.Round(time.Millisecond)))
	}
	if rep.Requests == 0 {
		rep.Failures = append(rep.Failures, "no request was sent")
	}
	// One failure per finding: what it found, its consequences folded
	// under it (Findings); an incomplete run's is that the gateway, not
	// the API, answered.
	if rep.Incomplete != "" {
		rep.Failures = append(rep.Failures, "INCOMPLETE: "+rep.Incomplete)
	} else {
		for _, f := range rep.Findings {
			rep.Failures = append(rep.Failures, f.Headline)
		}
	}
	// Outcome rules hold per operation: an operation none of whose requests
	// got an answer the document allows fails the run, whatever the others
	// did, unless a finding explains it.
	for _, name := range slices.Sorted(maps.Keys(rep.Ops)) {
		if op := rep.Ops[name]; op.Requests > 0 && op.Allowed == 0 && !rep.foldedOp(name) {
			rep.Failures = append(rep.Failures, fmt.Sprintf("%s: none of %d requests got an answer the document allows (%d without an answer within the timeout, %d server errors, %d contract violations, %d gateway answers)",
				name, op.Requests, op.Uncertain, op.ServerErrors, op.Violations, op.Gateway))
		}
	}

	if r := rep.Reconciliation; r != nil && !r.Passed() && len(rep.Findings) == 0 {
		rep.Failures = append(rep.Failures, fmt.Sprintf("%d invariant violations", r.ViolationCount()))
	}
	for _, f := range rep.Faults {
		if f.Error != "" {
			rep.Failures = append(rep.Failures, fmt.Sprintf("fault %s at %s did not go as scheduled (%s; see %s): the run did not test what was asked",
				f.Name, readable.Duration(f.Start.Sub(rep.Began)), f.Error, record.FileNemesisLog))
		}
	}
	if h := rep.History; h != nil && h.Verdict == verdict.HistoryUndecided {
		rep.Failures = append(rep.Failures, h.String()) // not illegal: a reading (strictFailures)
	}
	rep.Failures = append(rep.Failures, rep.strictFailures()...)
	vals := rep.values()
	given := map[string]bool{}
	for _, th := range thresholds {
		given[th.Metric] = true
	}
	for _, th := range defaultThresholds(thresholds) {
		if !given[th.Metric] {
			thresholds = append(thresholds, th)
		}
	}
	for _, th := range thresholds {
		res := th.Evaluate(vals)
		rep.Thresholds = append(rep.Thresholds, res)
		if !res.Passed {
			rep.Failures = append(rep.Failures, res.failure(rep.Scenario))
		}
	}
	// A run in which nothing failed but a rule was not put to the test
	// neither passes nor fails.
	if len(rep.Failures) == 0 {
		if s := rep.NotExercised(); s != "" {
			rep.Incomplete = s
			rep.Failures = append(rep.Failures, "INCOMPLETE: "+s)
		}
	}
	rep.Passed = len(rep.Failures) == 0
}

// strictFailures are the failures of a strict run's warnings: one per
// reading not followed; none when the run is not strict.
func (rep *Report) strictFailures() []string {
	if !rep.Strict {
		return nil
	}
	var out []string
	if r := rep.Reconciliation; r != nil {
		for _, id := range slices.Sorted(maps.Keys(r.WarningCounts)) {
			out = append(out, fmt.Sprintf("reading %s (strict run): %s checks failed", id, readable.Thousands(r.WarningCounts[id])))
		}
	}
	if h := rep.History; h != nil && h.Warning != nil {
		out = append(out, fmt.Sprintf("reading %s (strict run): %s", h.Warning.Reading, h))
	}
	return out
}

// WarningCount is the number of the run's warnings: the reconciliation's
// and the history check's.
func (rep *Report) WarningCount() int {
	n := 0
	if r := rep.Reconciliation; r != nil {
		n = r.WarningCount()
	}
	if h := rep.History; h != nil && h.Warning != nil {
		n++
	}
	return n
}

// warningGrade says how a run grades its warnings.
func warningGrade(strict bool) string {
	if strict {
		return "failures: the run is strict"
	}
	return "warnings: the run still passes unless --strict"
}

// writeTextWarnings writes the checks that failed but rest on a reading:
// warnings, failures of a strict run.
func writeTextWarnings(b *strings.Builder, r *verdict.Reconciliation, strict bool) {
	n := r.WarningCount()
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "  Readings not followed: %s (%s)\n", readable.Thousands(n), warningGrade(strict))
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "    %s\n", strings.ReplaceAll(w.String(), "\n", "\n    "))
	}
	if listed := len(r.Warnings); n > listed {
		fmt.Fprintf(b, "    … and %d more\n", n-listed)
	}
}

// writeText writes the human summary of rep (Text).
func (rep *Report) writeText(w io.Writer) error {
	var b strings.Builder
	rep.writeTextHead(&b)
	ops := slices.Sorted(maps.Keys(rep.Ops))
	rep.writeTextLatencies(&b, ops)
	rep.writeTextOperations(&b, ops)
	rep.writeTextReconciliation(&b)
	if h := rep.History; h != nil {
		fmt.Fprintf(&b, "\n%s\n", h)
		if w := h.Warning; w != nil {
			fmt.Fprintf(&b, "  %s (%s)\n", strings.ReplaceAll(w.String(), "\n", "\n  "), warningGrade(rep.Strict))
		}
	}
	rep.writeTextExercises(&b)
	rep.writeTextGenerator(&b)
	rep.writeTextVerdict(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTextHead writes the run's identity, load, requests, outcome, funds
// and status codes.
func (rep *Report) writeTextHead(b *strings.Builder) {
	shards := make([]string, len(rep.Shards))
	for i, s := range rep.Shards {
		shards[i] = s.String()
	}
	fmt.Fprintf(b, "Load test %s — scenario %s against %s\n", rep.RunID, rep.Scenario, rep.Target)
	if rep.Insecure != "" {
		fmt.Fprintf(b, "%s\n", rep.Insecure)
	}
	rep.writeLead(b)
	fmt.Fprintf(b, "Load      %s; shards %s; %s → %s%s\n", rep.Load, strings.Join(shards, " "),
		rep.Began.Format(time.RFC3339), rep.Ended.Format(time.RFC3339), rep.reconciledIn())
	rep.writeFaults(b)
	g := rep.Generator
	if g.Planned > 0 {
		fmt.Fprintf(b, "Requests  %s sent of %s scheduled; target %.1f/s, achieved %.1f/s; %s late (> %s; lateness p99 %s, worst %s)\n",
			readable.Thousands(g.Sent), readable.Thousands(g.Planned), g.TargetRate, g.AchievedRate, readable.Thousands(g.Late), readable.Duration(g.LateAfter),
			readable.Duration(g.Lateness.P99), readable.Duration(g.MaxLateness))
	} else {
		fmt.Fprintf(b, "Requests  %d sent at max rate; achieved %.1f/s\n", g.Sent, g.AchievedRate)
	}
	fmt.Fprintf(b, "Outcome   %.3f%% as expected (%s of %s); %.3f%% allowed by the document (%s); %s server errors (5xx or no readable answer), of which %s uncertain (no answer within the timeout, %.3f%%)%s\n",
		rep.SuccessPct, readable.Thousands(rep.Expected), readable.Thousands(rep.Requests), rep.AllowedPct, readable.Thousands(rep.Allowed), readable.Thousands(rep.ServerErrors),
		readable.Thousands(rep.Uncertain), rep.UncertainPct, rep.notDeliveredText())
	if rep.Throttled > 0 {
		fmt.Fprintf(b, "Throttled %s\n", rep.throttledText())
	}
	if rep.Funds != nil {
		fmt.Fprintf(b, "Funds     %s\n", rep.Funds)
	}
	if rep.Exhaustion != nil {
		fmt.Fprintf(b, "Wallets   %s\n", rep.Exhaustion)
	}
	if d := g.StoppedDryAfter; d > 0 {
		fmt.Fprintf(b, "Stopped   after %s: a load customer could afford no product (--when-dry stop)\n", d.Round(time.Millisecond))
	}
	var codes []string
	for c := range rep.StatusCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var cs []string
	for _, c := range codes {
		cs = append(cs, fmt.Sprintf("%s:%d", c, rep.StatusCodes[c]))
	}
	fmt.Fprintf(b, "Codes     %s\n\n", strings.Join(cs, "  "))

}

// writeTextLatencies writes the latency table: corrected and raw, then each
// operation's corrected latencies.
func (rep *Report) writeTextLatencies(b *strings.Builder, ops []string) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax\t")
	row := func(name string, l record.Latencies) {
		r := readable.Duration
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, r(l.Mean), r(l.P50), r(l.P90), r(l.P95), r(l.P99), r(l.P999), r(l.Max))
	}
	row("corrected (from schedule)", rep.Corrected)
	row("raw (from send)", rep.Raw)
	for _, k := range ops {
		row("  "+k+" corrected", rep.Ops[k].Corrected)
	}
	_ = tw.Flush()
	fmt.Fprintf(b, "Percentiles %s\n", rep.Percentiles)

}

// writeTextOperations writes each operation's counts, the error set and the
// contract violations by rule.
func (rep *Report) writeTextOperations(b *strings.Builder, ops []string) {
	fmt.Fprintf(b, "\nOperations\n")
	for _, k := range ops {
		o := rep.Ops[k]
		fmt.Fprintf(b, "  %-8s %6d requests, %6d as expected, %6d allowed, %d server errors, %d contract violations, %d uncertain, %d throttled\n",
			k, o.Requests, o.Expected, o.Allowed, o.ServerErrors, o.Violations, o.Uncertain, o.Throttled)
	}
	if len(rep.Errors) > 0 {
		fmt.Fprintf(b, "\nError set (unexpected answers, most frequent first)\n")
		for _, e := range rep.Errors {
			fmt.Fprintf(b, "  %6d × %-8s %s\n           e.g. %s\n", e.Count, e.Op, e.Error, e.Example)
		}
	}
	if rep.Contract.Violations > 0 {
		fmt.Fprintf(b, "\nContract violations (%d)\n", rep.Contract.Violations)
		var rules []string
		for r := range rep.Contract.ByRule {
			rules = append(rules, r)
		}
		sort.Strings(rules)
		for _, r := range rules {
			fmt.Fprintf(b, "  %6d × %s\n", rep.Contract.ByRule[r], r)
		}
	}
}

// writeTextReconciliation writes the reconciliation of the wallets and its
// invariant violations.
func (rep *Report) writeTextReconciliation(b *strings.Builder) {
	if r := rep.Reconciliation; r != nil {
		fmt.Fprintf(b, "\nReconciliation: %s create requests, %s ids, %s created, %s looked up, %s duplicate debits, %s uncertain requests (%s ids)\n",
			readable.Thousands(r.Requests), readable.Thousands(r.IDs), readable.Thousands(r.Created), readable.Thousands(r.LookedUp), readable.Thousands(r.Duplicates), readable.Thousands(r.Uncertain), readable.Thousands(r.UncertainIDs))
		if r.Waves > 0 {
			fmt.Fprintf(b, "  idempotency waves: %d\n", r.Waves)
		}
		if r.Resolved+r.NeverCreated > 0 {
			fmt.Fprintf(b, "  ids without a \"created\" answer resolved through payment status: %d created once, %d never created\n", r.Resolved, r.NeverCreated)
		}
		for _, a := range r.Accounts {
			if a.Skipped != "" {
				fmt.Fprintf(b, "  %-22s skipped: %s\n", a.Account, a.Skipped)
				continue
			}
			mark := "ok"
			if !a.OK {
				mark = "MISMATCH"
			}
			fmt.Fprintf(b, "  %-22s balance −Rp %s, expected %s; coins −%s, expected %s; %s created, %s uncertain ids  %s\n",
				a.Account, readable.Thousands(a.BalanceChange), readable.Span(a.BalanceMin, a.BalanceMax), readable.Thousands(a.CoinChange), readable.Span(a.CoinMin, a.CoinMax),
				readable.Thousands(a.Created), readable.Thousands(a.Uncertain), mark)
		}
		if len(r.Violations) > 0 {
			fmt.Fprintf(b, "  Invariant violations:\n")
			for _, v := range r.Violations {
				fmt.Fprintf(b, "    [%s] %s\n", v.Invariant, v.Detail)
			}
			var invs []string
			for inv := range r.Counts {
				invs = append(invs, inv)
			}
			sort.Strings(invs)
			for _, inv := range invs {
				if n := r.Omitted(inv); n > 0 {
					fmt.Fprintf(b, "    [%s] … and %d more\n", inv, n)
				}
			}
		}
		writeTextWarnings(b, r, rep.Strict)
	} else {
		fmt.Fprintf(b, "\nReconciliation: not performed\n")
	}
}

// writeTextGenerator writes how well the generator kept its schedule, and
// which side was the limit.
func (rep *Report) writeTextGenerator(b *strings.Builder) {
	g := rep.Generator
	fmt.Fprintf(b, "\nGenerator: peak %d workers (cap %s), peak %d in flight (connection cap %s), %d abandoned at drain\n",
		g.PeakWorkers, readable.Cap(g.MaxWorkers), g.PeakInFlight, readable.Cap(g.MaxConnections), g.Abandoned)
	if g.FellBehind != "" {
		fmt.Fprintf(b, "  %s\n", g.FellBehind)
	}
	switch {
	case g.HeldByServer:
		fmt.Fprintf(b, "  THE SERVER, NOT THE GENERATOR, WAS THE LIMIT: %d requests got no answer within the timeout, and the generator's workers and connections waited on them:\n", rep.Uncertain)
		for _, r := range g.Reasons {
			fmt.Fprintf(b, "  - %s\n", r)
		}
	case g.Limited:
		fmt.Fprintf(b, "  THE GENERATOR, NOT THE SERVER, WAS THE LIMIT:\n")
		for _, r := range g.Reasons {
			fmt.Fprintf(b, "  - %s\n", r)
		}
	default:
		fmt.Fprintf(b, "  kept its schedule (≥ %.0f%% sent, ≤ %.0f%% late, no cap reached)\n", minAchievedPct, maxLatePct)
	}
}

// writeTextVerdict writes the thresholds and the headline, with the
// failures that decided it.
func (rep *Report) writeTextVerdict(b *strings.Builder) {
	if len(rep.Thresholds) > 0 {
		fmt.Fprintf(b, "\nThresholds\n")
		for _, t := range rep.Thresholds {
			fmt.Fprintf(b, "  %s\n", t)
		}
	}
	switch {
	case rep.Passed, rep.Incomplete != "" && len(rep.Failures) == 1:
		fmt.Fprintf(b, "\n%s\n", rep.headline())
	default:
		fmt.Fprintf(b, "\n%s\n", rep.headline())
		for _, f := range rep.Failures {
			fmt.Fprintf(b, "  - %s\n", f)
		}
	}
}
