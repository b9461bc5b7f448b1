package generative

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// Options configure one generated run.
type Options struct {
	// Profile holds the target's base URL and credentials. Required.
	Profile *profiles.Profile
	// ProfilePath is the file Profile was read from, for the reproduction
	// command a failure prints; empty means the embedded reference.
	ProfilePath string
	// Conn is how the run reaches the target beyond its URL (TLS files,
	// -H headers): the reproductions repeat it (its flags after --profile,
	// curl's TLS arguments and headers). HTTPClient is built from it.
	Conn transport.Options
	// Examples is the number of examples of each schema property
	// (default 100); the stateful property runs Examples/2 sequences.
	Examples int
	// Steps is the average length of a stateful sequence (default 25).
	Steps int
	// Duration bounds the whole run (default 50s); properties stop drawing
	// new examples once it has passed.
	Duration time.Duration
	// Seed makes a run reproducible; 0 picks one.
	Seed uint64
	// Strict turns warnings into failures.
	Strict bool
	// RequestTimeout bounds each request (default 10s).
	RequestTimeout time.Duration
	// ShrinkTime bounds the shrinking of one failure (default 20s).
	ShrinkTime time.Duration
	// HTTPClient sends the requests (default a new client).
	HTTPClient *http.Client
	// Only, when set, runs only the properties it selects
	// (verdict.Selects: a name that contains one of its |-separated parts).
	Only string
	// Done, when set, receives each property's result as it ends.
	Done func(PropertyResult)
	// Rate paces the requests (requests a second; 0: none), to stay under
	// a target's known rate limit.
	Rate float64
	// MaxThrottleWait bounds the time the run holds off for a target that
	// throttles it (default throttle.DefaultMaxWait); past it the run
	// stops and the properties not run to their end are skipped.
	MaxThrottleWait time.Duration
	// Gate, when set, is the patience with a throttling target of a run
	// the generated mode is a part of (the scenarios' and the probe's
	// too); Rate and MaxThrottleWait are then its own.
	Gate *throttle.Gate
}

// The outcome of a property is one of verdict's statuses. A property the run's interruption left
// unfinished or unstarted is skipped, never failed. A property the
// target's throttling cut below a fifth of its planned examples is not
// judged (judgedShare): it passed, but on too few examples to say the
// rule holds.

// judgedShare: a property that passed on fewer than 1/judgedShare of its
// planned examples because the target throttled is not judged.
const judgedShare = 5

// The causes of a property that ran fewer examples than planned
// (PropertyResult.Cut).
const (
	CutBudget    = "the run's time budget (--budget gives it more)"
	CutThrottled = "the target throttled"
)

// PropertyResult is the outcome of one generated property.
type PropertyResult struct {
	// Operation is the operationId of openapi.yaml, or "sequences".
	Operation string `json:"operation"`
	// Property names what was generated.
	Property string `json:"property"`
	Status   string `json:"status"`
	// Examples counts the examples that ran; Planned those the budget of
	// examples asked for.
	Examples int `json:"examples"`
	Planned  int `json:"planned"`
	// Cut says why a property that passed ran fewer examples than planned:
	// CutBudget or CutThrottled.
	Cut string `json:"cut,omitempty"`
	// Failure says which check failed on the shrunk example.
	Failure string `json:"failure,omitempty"`
	// Reason says why a skipped property did not run to its end.
	Reason string `json:"reason,omitempty"`
	// Reproduction is the shrunk example: a curl line (schema properties;
	// for a payment failed by the payer's wallet, a sh script that reads the
	// wallet, pays and reads it again) or a Gherkin scenario (sequences;
	// for a wallet's failure, followed by SequenceScriptHead and the sh
	// script that sends the sequence again and checks the wallet).
	Reproduction string `json:"reproduction,omitempty"`
	// Command runs the property again against the same target with the
	// same seed (set on a failure).
	Command string `json:"command,omitempty"`
	// exchanges are the requests and answers of the failing example, which
	// WriteFeatures writes as a HAR file beside its feature.
	exchanges []repro.Exchange
	// Feature is the failure as a feature file of the suite's replay steps
	// (a schema property whose request the document refuses), or "".
	Feature string `json:"feature,omitempty"`
	// Gateway is the page of the gateway in front of the API that kept the
	// property from being judged (contract.GatewayAnswer): it is not
	// judged, and has no reproduction.
	Gateway  *contract.Gateway  `json:"gateway,omitempty"`
	Warnings []contract.Warning `json:"warnings,omitempty"`
	// Broke is the error the failure is about, when it names what the
	// answer broke (its departure from openapi.yaml or §1, or a rule of
	// internal/contract): the property's cause is then named by it, as
	// every judge names it (verdict.ErrorCause).
	Broke error `json:"-"`
	// Seconds is how long the property ran.
	Seconds float64 `json:"seconds"`
}

// Name is "operation: property".
func (p PropertyResult) Name() string { return p.Operation + ": " + p.Property }

// Result is the outcome of a generated run.
type Result struct {
	Seed       uint64           `json:"seed"`
	Requests   int64            `json:"requests"`
	Seconds    float64          `json:"seconds"`
	Properties []PropertyResult `json:"properties"`
	// Interrupted says why the run was interrupted (a signal), if it was.
	Interrupted string `json:"interrupted,omitempty"`
	// Stopped says why the run stopped before its end (the target kept
	// throttling), if it did: the properties it did not run to their end
	// are skipped, none failed.
	Stopped string `json:"stopped,omitempty"`
	// Incomplete says why the run stopped before its end when its answers
	// were mostly a gateway's, not the API's (a *contract.GatewayError's
	// sentence): the run is INCOMPLETE, and the properties it did not run
	// to their end are skipped, none failed.
	Incomplete string `json:"incomplete,omitempty"`
	// Throttling is what the target's rate limit cost the run.
	Throttling throttle.Summary `json:"throttling"`
	// Insecure is set when the run did not verify the target's certificate
	// (--insecure-skip-verify): the sentence that says so.
	Insecure string `json:"insecure,omitempty"`
}

// OK reports whether every property passed.
func (r Result) OK() bool {
	for _, p := range r.Properties {
		if p.Status != verdict.StatusPassed {
			return false
		}
	}
	return true
}

// Failed counts the properties that failed.
func (r Result) Failed() int {
	n := 0
	for _, p := range r.Properties {
		if p.Status == verdict.StatusFailed {
			n++
		}
	}
	return n
}

// NotJudged counts the properties not judged: the target's throttling cut
// them below a fifth of their examples, or a gateway answered instead of
// the API.
func (r Result) NotJudged() int {
	n := 0
	for _, p := range r.Properties {
		if p.Status == verdict.StatusNotJudged {
			n++
		}
	}
	return n
}

// Warned counts the properties that passed with warnings.
func (r Result) Warned() int {
	n := 0
	for _, p := range r.Properties {
		if p.Status == verdict.StatusPassed && len(p.Warnings) > 0 {
			n++
		}
	}
	return n
}

// ErrUsage marks a run that could not start because of its options.
var ErrUsage = errors.New("generative: usage")

// ErrInterrupted marks a run interrupted before it could start.
var ErrInterrupted = errors.New("interrupted")

// Run runs every property against the profile's target and returns what
// happened. It returns an error only when the run could not take place.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.Profile == nil {
		return Result{}, fmt.Errorf("%w: a profile is required", ErrUsage)
	}
	if err := opts.Profile.Validate(); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if opts.Examples <= 0 {
		opts.Examples = 100
	}
	if opts.Steps <= 0 {
		opts.Steps = 25
	}
	if opts.Duration <= 0 {
		opts.Duration = 50 * time.Second
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 10 * time.Second
	}
	if opts.ShrinkTime <= 0 {
		opts.ShrinkTime = 20 * time.Second
	}
	if opts.Seed == 0 {
		opts.Seed = uint64(time.Now().UnixNano())
	}
	// The run's own context: the client stops it when the target kept
	// throttling, and the properties not run to their end say so.
	outer := ctx
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	gate := opts.Gate
	if gate == nil {
		gate = throttle.New(throttle.Options{Rate: opts.Rate, MaxWait: opts.MaxThrottleWait})
	}
	c, err := newClient(opts.Profile.BaseURL, opts.HTTPClient, opts.RequestTimeout, gate, stopRun)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	w := &world{ctx: ctx, seed: opts.Seed, c: c, prof: opts.Profile, profilePath: opts.ProfilePath, conn: opts.Conn, runID: newRunID()}
	if err := w.setup(); err != nil {
		if stopped := gate.Stopped(); stopped != nil {
			return Result{}, fmt.Errorf("preparing the generated run: %w", stopped)
		}
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%w while preparing the generated run: %w", ErrInterrupted, context.Cause(ctx))
		}
		return Result{}, fmt.Errorf("preparing the generated run: %w", err)
	}
	deadline := start.Add(opts.Duration)
	res := Result{Seed: opts.Seed}
	for _, p := range w.properties(opts) {
		if !verdict.Selects(opts.Only, p.result.Name()) {
			continue
		}
		var pr PropertyResult
		if ctx.Err() != nil {
			pr = p.result
			pr.Status, pr.Reason = verdict.StatusSkipped, "not run: "+interruption(ctx)
		} else {
			pr = p.check(ctx, opts, deadline, c)
		}
		if opts.Done != nil {
			opts.Done(pr)
		}
		res.Properties = append(res.Properties, pr)
	}
	switch stopped := gate.Stopped(); {
	case errors.Is(stopped, contract.ErrGateway):
		res.Incomplete = stopped.Error()
	case stopped != nil:
		res.Stopped = stopped.Error()
	case outer.Err() != nil:
		res.Interrupted = interruption(ctx)
	}
	res.Throttling = gate.Summary()
	res.Requests = c.sent.Load()
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// property is one rapid property and what it found.
type property struct {
	result   PropertyResult
	examples int
	steps    int
	// variants splits the examples evenly between kinds of example (the
	// defects of an operation), so that each is drawn; body receives the
	// variant. 0 means one.
	variants int
	body     func(t *rapid.T, rec *record, variant int)
}

// record collects, across the examples of a property, the warnings and the
// reproduction of the last failing example (rapid runs the shrunk example
// last).
type record struct {
	strict bool
	// command reruns the property with the run's target, profile and seed.
	command  string
	mu       sync.Mutex
	warnings map[string]contract.Warning
	order    []string
	repro    string
	failure  string
	// broke is the error among fail's arguments that names what the
	// answer broke (verdict.ErrorCause), or nil.
	broke error
	// feature is the feature file of the failure being reported (set just
	// before fail), failFeature the one of the last failure.
	feature, failFeature string
	// c counts the answers a gateway gave instead of the API: pagesStart
	// when the property began, pagesAt when the example did. A gateway's
	// page ends the property, not judged (page), and a check it made fail
	// is no failure of the API's (paged).
	c                   *client
	pagesStart, pagesAt int64
	page                *contract.Gateway
	// exchanges are the requests and answers of the last failing example.
	exchanges []repro.Exchange
}

// begin starts an example; once a gateway has answered in the property,
// every example is skipped: the property is not judged.
func (r *record) begin(t *rapid.T) {
	if r.c == nil {
		return
	}
	r.c.exchanges.reset()
	r.mu.Lock()
	n := r.c.pages.Load()
	if n > r.pagesStart && r.page == nil {
		r.page = r.c.lastPage.Load()
	}
	page := r.page
	r.pagesAt = n
	r.mu.Unlock()
	if page != nil {
		t.SkipNow()
	}
}

// gatewayPage is the gateway's page met in the property, or nil.
func (r *record) gatewayPage() *contract.Gateway {
	if r.c == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.page == nil && r.c.pages.Load() > r.pagesStart {
		r.page = r.c.lastPage.Load()
	}
	return r.page
}

// paged reports whether a gateway answered during the example: what its
// checks found is then not the API's doing.
func (r *record) paged() bool {
	if r.c == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c.pages.Load() == r.pagesAt {
		return false
	}
	if r.page == nil {
		r.page = r.c.lastPage.Load()
	}
	return true
}

// warn grades a failed reading: a warning, or in a strict run a failure.
// request is what earned it (a curl line, or the steps of a sequence); a
// warning keeps the first request that earned it.
func (r *record) warn(t *rapid.T, rd contract.Reading, detail, request string) {
	if r.paged() {
		t.SkipNow() // a gateway answered, not the API: nothing to grade
	}
	if r.strict {
		r.fail(t, request, "reading %s (strict run): %s", rd.ID, detail)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	key := rd.ID + "\x00" + detail
	if _, ok := r.warnings[key]; ok {
		return
	}
	if r.warnings == nil {
		r.warnings = map[string]contract.Warning{}
	}
	if len(r.order) >= 10 {
		return
	}
	r.warnings[key] = contract.Warning{Reading: rd.ID, Sentence: rd.Sentence, Detail: detail + "\nthe request that earned it:\n" + strings.TrimRight(request, "\n")}
	r.order = append(r.order, key)
}

// fail records the reproduction of a failing example and fails it; an
// example a gateway answered in is skipped instead: no failure of the
// API's, and no reproduction of a gateway's page.
func (r *record) fail(t *rapid.T, repro, format string, args ...any) {
	if r.paged() {
		t.SkipNow()
	}
	msg := fmt.Sprintf(format, args...)
	var broke error
	for _, a := range args {
		if err, ok := a.(error); ok {
			if _, named := verdict.ErrorCause("", err); named {
				broke = err
				break
			}
		}
	}
	r.mu.Lock()
	r.repro, r.failure, r.broke = repro, msg, broke
	r.failFeature, r.feature = r.feature, ""
	if r.c != nil {
		r.exchanges = r.c.exchanges.taken()
	}
	r.mu.Unlock()
	t.Fatal(failKey(msg))
}

// figures are the numbers of a failure's message.
var figures = regexp.MustCompile(`[0-9]+`)

// failKey is what rapid is told of a failure: its message with every
// figure as #. rapid shrinks a failing example only to examples that fail
// with the same message, and a target keeps its state from one example to
// the next (a wallet lower by what the last one paid, a transaction number
// further on), so the figures of one failure are seldom those of its
// shrunk example: with them rapid would not shrink at all (its first step,
// running the failing example again, already differs), and a sequence
// stayed as long as it was found (110 steps). The message in full is the
// record's.
func failKey(msg string) string { return figures.ReplaceAllString(msg, "#") }

// batch is how many examples one rapid.Check runs; between batches the
// deadline is checked.
const batch = 10

// minPerVariant is the fewest examples each kind of example gets.
const minPerVariant = 5

// check runs the property in batches until its examples are done, the
// deadline has passed, an example fails or a gateway answered instead of
// the API (the property is then not judged). A property that passed on
// fewer examples than planned says why (Cut): the target throttled it (the
// client's gate counted throttled answers meanwhile), or the time budget
// ran out.
func (p *property) check(ctx context.Context, opts Options, deadline time.Time, c *client) PropertyResult {
	gate := c.gate
	defer holdRapid(rapidSettings{steps: p.steps, shrinkTime: opts.ShrinkTime})()
	h := fnv.New64a()
	_, _ = h.Write([]byte(p.result.Name()))
	base := opts.Seed ^ h.Sum64()
	rec := &record{strict: opts.Strict, command: opts.command(p.result.Name()), c: c, pagesStart: c.pages.Load()}
	res := p.result
	variants := max(p.variants, 1)
	per := (p.examples + variants - 1) / variants
	if variants > 1 {
		per = max(per, minPerVariant)
	}
	res.Planned = per * variants
	throttledBefore, started := gate.Summary().Throttled, time.Now()
	round := 0
	for v := 0; v < variants && res.Status == ""; v++ {
		for done := 0; done < per; round++ {
			if ctx.Err() != nil || (round > 0 && time.Now().After(deadline)) {
				v = variants
				break
			}
			n := min(batch, per-done)
			tb := &captureTB{name: res.Name()}
			checkBatch(tb, n, base+uint64(round)*7919+1, func(t *rapid.T) { rec.begin(t); p.body(t, rec, v) })
			done += n
			res.Examples += n
			if ctx.Err() != nil {
				// What failed after the interruption failed because of it.
				res.Status, res.Reason = verdict.StatusSkipped, "not run to its end: "+interruption(ctx)
				break
			}
			if g := rec.gatewayPage(); g != nil && rec.failure == "" {
				res.Status, res.Gateway = verdict.StatusNotJudged, g
				res.Reason = fmt.Sprintf("%s; not judged after %d of %d examples", g.Error(), res.Examples, res.Planned)
				break
			}
			if tb.failed {
				res.Status = verdict.StatusFailed
				res.Failure, res.Broke = rec.failure, rec.broke
				if res.Failure == "" {
					res.Failure = tb.firstError()
				}
				res.Reproduction = rec.repro
				res.Command = rec.command
				res.Feature = rec.failFeature
				res.exchanges = rec.exchanges
				break
			}
		}
	}
	if res.Status == "" && ctx.Err() != nil {
		res.Status, res.Reason = verdict.StatusSkipped, "not run to its end: "+interruption(ctx)
	}
	res.Seconds = time.Since(started).Seconds()
	if res.Status == "" {
		res.Status = verdict.StatusPassed
		res.cut(gate.Summary().Throttled > throttledBefore)
	}
	for _, k := range rec.order {
		res.Warnings = append(res.Warnings, rec.warnings[k])
	}
	return res
}

// cut says why a passed property ran fewer examples than planned: the
// target throttled it (throttled), or the time budget ran out. Cut below a
// fifth of its examples, it is not judged: too few examples ran to say the
// rule holds; a budget cut names the time the property would need at the
// pace it ran.
func (res *PropertyResult) cut(throttled bool) {
	if res.Examples >= res.Planned {
		return
	}
	res.Cut = CutBudget
	if throttled {
		res.Cut = CutThrottled
	}
	if res.Examples*judgedShare >= res.Planned {
		return
	}
	res.Status = verdict.StatusNotJudged
	res.Reason = fmt.Sprintf("%d of %d examples run: %s; fewer than a fifth of its examples say nothing of the rule", res.Examples, res.Planned, res.Cut)
	if !throttled && res.Examples > 0 {
		need := time.Duration(res.Seconds * float64(res.Planned) / float64(res.Examples) * float64(time.Second))
		res.Reason += fmt.Sprintf("; at the pace it ran, its %d examples need about %s (leave --budget out, or raise it by that)", res.Planned, readable.Duration(need.Round(time.Second)))
	}
}

// command is the command line that runs the property named name again
// (the --only filter) against the same target with the same seed.
func (o Options) command(name string) string {
	var b strings.Builder
	b.WriteString("conformance generate")
	if o.ProfilePath != "" {
		fmt.Fprintf(&b, " --target %s --profile %s", shellWord(o.Profile.BaseURL), shellWord(o.ProfilePath))
		for _, a := range o.Conn.Args() {
			b.WriteString(" " + shellWord(a))
		}
	}
	fmt.Fprintf(&b, " --seed %d --only %s", o.Seed, shellWord(name))
	if o.Strict {
		b.WriteString(" --strict") // a failed reading fails only a strict run
	}
	return b.String()
}

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return shellQuote(s)
}

// interruption describes why ctx ended: "interrupted (interrupt signal
// received)", or the target kept throttling, or its answers were mostly a
// gateway's (the gate's error).
func interruption(ctx context.Context) string {
	cause := context.Cause(ctx)
	if throttle.Stops(cause) {
		return cause.Error()
	}
	if cause != nil && cause.Error() != context.Canceled.Error() {
		return "interrupted (" + cause.Error() + ")"
	}
	return "interrupted"
}

// captureTB is the rapid.TB of a run outside `go test`: it records what
// rapid reports instead of printing it.
type captureTB struct {
	name   string
	mu     sync.Mutex
	errors []string
	failed bool
}

func (c *captureTB) Helper()              {}
func (c *captureTB) Name() string         { return c.name }
func (c *captureTB) Logf(string, ...any)  {}
func (c *captureTB) Log(...any)           {}
func (c *captureTB) Skipf(string, ...any) {}
func (c *captureTB) Skip(...any)          {}
func (c *captureTB) SkipNow()             {}
func (c *captureTB) Errorf(format string, args ...any) {
	c.add(fmt.Sprintf(format, args...))
}
func (c *captureTB) Error(args ...any) { c.add(fmt.Sprint(args...)) }
func (c *captureTB) Fatalf(format string, args ...any) {
	c.add(fmt.Sprintf(format, args...))
}
func (c *captureTB) Fatal(args ...any) { c.add(fmt.Sprint(args...)) }
func (c *captureTB) FailNow()          { c.fail() }
func (c *captureTB) Fail()             { c.fail() }
func (c *captureTB) Failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

func (c *captureTB) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errors = append(c.errors, s)
	c.failed = true
}

func (c *captureTB) fail() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failed = true
}

func (c *captureTB) firstError() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errors) == 0 {
		return "failed"
	}
	return c.errors[0]
}
