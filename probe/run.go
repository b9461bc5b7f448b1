package probe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/verdict"
)

// probeCase is one case: its name, and how it finds its payer and sends
// its i-th wave.
type probeCase struct {
	name string
	// payer is the account the case pays from; skip says why the profile
	// gives none, cause why the target kept the probe from making one.
	payer func(ctx context.Context) (p *payer, skip, cause string)
	wave  func(ctx context.Context, p *payer, i int) outcome
}

// cases are the probe's cases, in order.
func (w *world) cases() []probeCase {
	return []probeCase{
		{name: caseOneID, payer: w.anyPayer, wave: func(ctx context.Context, p *payer, i int) outcome {
			return w.oneIDWave(ctx, p, i%2 == 1) // every other wave reuses a refused payment's id
		}},
		{name: caseOneWallet, payer: w.walletPayer, wave: func(ctx context.Context, p *payer, _ int) outcome {
			return w.oneWalletWave(ctx, p)
		}},
	}
}

// anyPayer is the funded customer, or else a cashier the probe provisions
// (once) to pay through a gateway method.
func (w *world) anyPayer(ctx context.Context) (*payer, string, string) {
	if w.funded != nil {
		return w.funded, "", ""
	}
	if w.cashier == nil && w.cashierErr == nil {
		w.cashier, w.cashierErr = w.provisionCashier(ctx)
	}
	if w.cashierErr != nil {
		return nil, "", fmt.Sprintf("the profile names no funded customer, and the probe could not pay through a gateway method instead: %v", w.cashierErr)
	}
	return w.cashier, "", ""
}

// walletPayer is the funded customer: only its wallet can be watched.
func (w *world) walletPayer(context.Context) (*payer, string, string) {
	if w.funded == nil {
		return nil, "profile: no funded_customer.token: the case pays from the funded customer's wallet", ""
	}
	return w.funded, "", ""
}

// Run runs the probe's cases against the profile's target and returns what
// happened. It returns an error only when the run could not take place
// (ErrUsage).
func Run(ctx context.Context, opts Options) (Result, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	outer := ctx
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	gate := opts.Gate
	if gate == nil {
		gate = throttle.New(throttle.Options{Rate: opts.Rate, MaxWait: opts.MaxThrottleWait})
	}
	c, err := newClient(opts, gate, stopRun)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	w := &world{c: c, opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)), runID: newRunID()}
	res := Result{Seed: opts.Seed, WaveSize: opts.WaveSize, Insecure: opts.Conn.Warning()}
	setupErr := w.readCatalog(ctx)
	if setupErr == nil {
		w.funded = w.fundedPayer()
	}
	deadline := start.Add(opts.Duration)
	for _, pc := range w.cases() {
		cr := CaseResult{Operation: contract.OpCreatePayment, Case: pc.name, Planned: opts.Waves}
		if !verdict.Selects(opts.Only, cr.Name()) {
			continue
		}
		switch {
		case ctx.Err() != nil:
			cr.Status, cr.Reason = w.unfinished(ctx, "not run")
		case setupErr != nil:
			cr.Status, cr.Reason = verdict.StatusNotJudged, "the probe could not read what its payments need: "+setupErr.Error()
		default:
			cr = w.runCase(ctx, pc, cr, deadline)
		}
		if opts.Done != nil {
			opts.Done(cr)
		}
		res.Cases = append(res.Cases, cr)
	}
	if cr := (CaseResult{Operation: contract.OpGetPaymentStatus, Case: caseFound}); verdict.Selects(opts.Only, cr.Name()) {
		switch {
		case ctx.Err() != nil:
			cr.Status, cr.Reason = w.unfinished(ctx, "not run")
		case setupErr != nil && len(opts.Earlier) == 0:
			cr.Status, cr.Reason = verdict.StatusNotJudged, "the probe could not read what its payments need: "+setupErr.Error()
		default:
			cr = w.foundCase(ctx, deadline)
		}
		if opts.Done != nil {
			opts.Done(cr)
		}
		res.Cases = append(res.Cases, cr)
	}
	if stopped := gate.Stopped(); stopped != nil {
		res.Stopped = stopped.Error()
	} else if outer.Err() != nil {
		res.Interrupted = interruption(ctx)
	}
	res.Throttling = gate.Summary()
	res.Requests = c.sent.Load()
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// runCase runs the waves of one case: one at least, at most opts.Waves,
// none started after the deadline; it stops at the first wave that breaks
// a rule.
func (w *world) runCase(ctx context.Context, pc probeCase, cr CaseResult, deadline time.Time) CaseResult {
	p, skip, cause := pc.payer(ctx)
	switch {
	case ctx.Err() != nil:
		cr.Status, cr.Reason = w.unfinished(ctx, "not run")
		return cr
	case skip != "":
		cr.Status, cr.Reason = verdict.StatusSkipped, skip
		return cr
	case cause != "":
		cr.Status, cr.Reason = verdict.StatusNotJudged, cause
		return cr
	}
	tl := &caseTally{CaseResult: cr, planned: w.opts.Waves, warned: map[string]int{}}
	ran := 0
	for ; ran < w.opts.Waves && tl.Status == "" && tl.short == ""; ran++ {
		if ctx.Err() != nil || ran > 0 && time.Now().After(deadline) {
			break
		}
		tl.add(ctx, ran, pc.wave(ctx, p, ran))
	}
	if tl.short != "" {
		ran-- // the wave the wallet could not pay for was not sent
	}
	tl.noteWarnings()
	if tl.Status != "" {
		return tl.CaseResult
	}
	var cut []string
	switch {
	case tl.short != "":
		cut = append(cut, fmt.Sprintf("%d of %d waves run: %s", ran, w.opts.Waves, tl.short))
	case ran < w.opts.Waves:
		cut = append(cut, fmt.Sprintf("%d of %d waves run: the time budget of %s ran out (leave --budget out, or raise it)", ran, w.opts.Waves, readable.Duration(w.opts.Duration)))
	}
	if len(tl.causes) > 0 {
		cut = append(cut, fmt.Sprintf("%s not judged: %s", readable.Plural(len(tl.causes), "wave", "waves"), summarize(tl.causes)))
	}
	switch least := leastWaves(w.opts.Waves); {
	case ctx.Err() != nil:
		tl.Status, tl.Reason = w.unfinished(ctx, "not run to its end")
	case tl.Waves == 0 && tl.short != "" && len(tl.causes) == 0:
		tl.Status, tl.Reason = verdict.StatusNotJudged, tl.short
	case tl.Waves == 0 && len(cut) == 1:
		tl.Status, tl.Reason = verdict.StatusNotJudged, "no wave could be judged: "+summarize(tl.causes)
	case tl.Waves == 0:
		tl.Status, tl.Reason = verdict.StatusNotJudged, "no wave could be judged: "+strings.Join(cut, "; ")
	case tl.Waves < least:
		// A race shows in some waves, not in each: a case cut below the
		// waves it needs has not judged its rule, whatever it saw.
		tl.Status, tl.Reason = verdict.StatusNotJudged, fmt.Sprintf("%s judged, and a race needs %d at least to be judged: %s",
			readable.Plural(tl.Waves, "wave", "waves"), least, strings.Join(cut, "; "))
	default:
		tl.Status = verdict.StatusPassed
		tl.Cut = strings.Join(cut, "; ")
	}
	return tl.CaseResult
}

// leastWaves is how many of planned waves a case must judge to judge its
// race: a quarter (5 of the default 20), one at least. A race that a
// server loses in one wave of three passes 5 waves with a chance of
// (2/3)^5, under 14 %; the default 20 leave it 0.03 %.
func leastWaves(planned int) int { return max(1, planned/4) }

// caseTally is a case's result as its waves come in.
type caseTally struct {
	CaseResult
	planned int
	// short is why the waves stopped before their number: the wallet ran
	// out (purse.short).
	short  string
	causes []string       // of the waves not judged
	warned map[string]int // by reading: the waves that departed from it
}

// add counts the outcome of wave i: a failure or a skip ends the case
// (Status set); a wave the run's end cut short says nothing of the target.
func (tl *caseTally) add(ctx context.Context, i int, o outcome) {
	tl.Payments += o.payments
	for _, wn := range o.warnings {
		if tl.warned[wn.Reading]++; tl.warned[wn.Reading] == 1 {
			wn.Detail = fmt.Sprintf("wave %d: %s", i+1, wn.Detail)
			tl.Warnings = append(tl.Warnings, wn)
		}
	}
	switch {
	case o.fail != nil:
		tl.Waves++
		tl.Status, tl.Pointer, tl.Sentence, tl.Reproduction = verdict.StatusFailed, o.fail.pointer, o.fail.sentence, o.repro
		tl.Broke = o.fail.err
		wave := fmt.Sprintf("wave %d of %d", i+1, tl.planned)
		if o.seen != "" && !o.fail.counts {
			wave += " (" + o.seen + ")"
		}
		tl.Failure = wave + ": " + strings.TrimSuffix(o.fail.err.Error(), " ("+o.fail.sentence+")")
	case ctx.Err() != nil && !o.judged:
	case o.short != "":
		tl.short = o.short
	case o.judged:
		tl.Waves++
	default:
		tl.causes = append(tl.causes, o.cause)
	}
}

// noteWarnings says, in each warning, how many more waves departed from
// its reading.
func (tl *caseTally) noteWarnings() {
	for k := range tl.Warnings {
		if more := tl.warned[tl.Warnings[k].Reading] - 1; more > 0 {
			tl.Warnings[k].Detail += fmt.Sprintf(" (and the same in %s)", readable.Plural(more, "more wave", "more waves"))
		}
	}
}

// unfinished is the status and reason of a case the run's end cut short:
// not judged when the target kept throttling or its answers were mostly
// a gateway's, skipped when the run was interrupted.
func (w *world) unfinished(ctx context.Context, what string) (string, string) {
	if throttle.Stops(context.Cause(ctx)) {
		return verdict.StatusNotJudged, what + ": " + context.Cause(ctx).Error()
	}
	return verdict.StatusSkipped, what + ": " + interruption(ctx)
}

// summarize says the causes of the waves not judged, each once, with how
// many waves it cost.
func summarize(causes []string) string {
	var order []string
	count := map[string]int{}
	for _, c := range causes {
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
	}
	parts := make([]string, 0, len(order))
	for _, c := range order {
		if count[c] > 1 {
			c = fmt.Sprintf("%s (%d waves)", c, count[c])
		}
		parts = append(parts, c)
	}
	return strings.Join(parts, "; ")
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
