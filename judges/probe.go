package judges

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/readable"
	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// Probe is the concurrency probe of a run (package probe): waves of
// concurrent payments with one partner_trx_id, and from one wallet, judged
// through internal/contract, bounded by their own waves and by the time
// the run gives it.
type Probe struct {
	// Seed repeats a run's draws (0 picks one; the run prints it).
	Seed uint64
	// Only runs only the cases it selects (verdict.Selects; a rerun of the
	// failed ones).
	Only string
	// Waves of each case and WaveSize, the payments a wave sends at once
	// (0: the probe's defaults).
	Waves, WaveSize int
	// Keep, when set, receives the probe's result as probe.Run returned it.
	Keep *probe.Result
}

// Name is verdict.JudgeProbe.
func (Probe) Name() string { return verdict.JudgeProbe }

// Judge runs the probe within env.Budget (none: every wave it plans,
// within noBudgetBound).
func (p Probe) Judge(ctx context.Context, env steps.JudgeEnv) (steps.Judgement, error) {
	budget := cmp.Or(env.Budget, noBudgetBound)
	opts := probe.Options{Profile: env.Profile, ProfilePath: env.ProfilePath, Conn: env.Conn, Gate: env.Gate, RequestTimeout: env.RequestTimeout,
		Seed: p.Seed, Waves: p.Waves, WaveSize: p.WaveSize, Duration: budget, Strict: env.Strict, Only: p.Only}
	if opts.Seed == 0 {
		opts.Seed = uint64(time.Now().UnixNano()) | 1
	}
	for _, c := range env.Created {
		opts.Earlier = append(opts.Earlier, probe.Known{SecretKey: c.SecretKey, Token: c.Token, Who: fmt.Sprintf("the account the suite calls %q", c.Actor),
			PartnerTrxID: c.PartnerTrxID, TransactionNumber: c.TransactionNumber})
	}
	opts.Done = func(c probe.CaseResult) { env.Case(c.Verdict(false)) }
	run := verdict.JudgeRun{Name: p.Name(), State: verdict.JudgeRan, Seed: opts.Seed, Unit: "waves", BudgetSeconds: env.Budget.Seconds(),
		Budget: fmt.Sprintf("%d waves of %d payments a case, %s", cmp.Or(p.Waves, probe.DefaultWaves), cmp.Or(p.WaveSize, probe.DefaultWaveSize),
			timeBudget(env.Budget))}
	start := time.Now()
	res, err := probe.Run(ctx, opts)
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		if errors.Is(err, probe.ErrUsage) {
			return steps.Judgement{}, err
		}
		return steps.Judgement{}, fmt.Errorf("the probe: %w", err)
	}
	if p.Keep != nil {
		*p.Keep = res
	}
	run.Requests = res.Requests
	var out steps.Judgement
	for _, c := range res.Cases {
		run.Examples += c.Waves
		run.Planned += max(c.Planned, c.Waves)
		if c.Cut != "" {
			run.Cuts = append(run.Cuts, c.Name()+": "+c.Cut) // the cut counts its waves
		}
		out.Cases = append(out.Cases, c.Verdict(res.Interrupted != ""))
	}
	switch {
	case res.Stopped != "" && env.Gate != nil && errors.Is(env.Gate.Stopped(), contract.ErrGateway):
		out.Stopped = &verdict.Stop{Cause: verdict.StopGateway, Reason: res.Stopped}
		run.Reason = "stopped: " + res.Stopped
	case res.Stopped != "":
		out.Stopped = &verdict.Stop{Cause: verdict.StopThrottled, Reason: res.Stopped}
		run.Reason = "stopped: " + res.Stopped
	case res.Interrupted != "":
		out.Stopped = &verdict.Stop{Cause: verdict.StopInterrupted, Reason: res.Interrupted}
		run.Reason = res.Interrupted
	}
	out.Run = run
	return out, nil
}

// timeBudget is the time the run gives a judge, in words.
func timeBudget(d time.Duration) string {
	if d <= 0 {
		return "no time budget"
	}
	return readable.Duration(d.Round(100 * time.Millisecond))
}
