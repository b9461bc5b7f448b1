package judges

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// Generated is the generated judge of a run (package generative): schema
// properties of every operation and stateful sequences checked against a
// model of the document's rules, within the time the run gives it.
type Generated struct {
	// Examples per schema property (default 100, as `conformance
	// generate`); the stateful property runs half as many sequences.
	Examples int
	// Steps is the average length of a sequence (default 25).
	Steps int
	// Seed repeats a run (0 picks one; the run prints it).
	Seed uint64
	// Only runs only the properties it selects (verdict.Selects; a rerun
	// of the failed ones).
	Only string
	// ShrinkTime bounds the shrinking of one failure (default 20s).
	ShrinkTime time.Duration
	// ReportDir, when set, receives each failure that has one as a
	// feature file of the suite's replay steps (generated-N.feature).
	ReportDir string
	// Keep, when set, receives the generated run's result as
	// generative.Run returned it, for a caller that reads more of it than
	// the reports do (the generated mode's tests: the shrunk reproductions,
	// the feature files).
	Keep *generative.Result
}

// Name is verdict.JudgeGenerated.
func (Generated) Name() string { return verdict.JudgeGenerated }

// Judge runs the generated properties within env.Budget.
func (g Generated) Judge(ctx context.Context, env steps.JudgeEnv) (steps.Judgement, error) {
	opts := generative.Options{
		Profile: env.Profile, ProfilePath: env.ProfilePath, Conn: env.Conn, Examples: g.Examples, Steps: g.Steps,
		Duration: cmp.Or(env.Budget, noBudgetBound), Seed: g.Seed, Strict: env.Strict, RequestTimeout: env.RequestTimeout, ShrinkTime: g.ShrinkTime,
		HTTPClient: env.HTTPClient, Gate: env.Gate, Only: g.Only,
	}
	if opts.Seed == 0 {
		opts.Seed = uint64(time.Now().UnixNano()) | 1
	}
	opts.Done = func(p generative.PropertyResult) { env.Case(p.Verdict()) }
	run := verdict.JudgeRun{Name: g.Name(), State: verdict.JudgeRan, Seed: opts.Seed, Unit: "examples", Budget: g.budget(env.Budget),
		BudgetSeconds: env.Budget.Seconds(), Rerun: rerun(opts)}
	start := time.Now()
	res, err := generative.Run(ctx, opts)
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		return g.notRun(run, err)
	}
	run.Requests = res.Requests
	if g.Keep != nil {
		*g.Keep = res
	}
	var out steps.Judgement
	repros := map[string]generative.Reproduction{}
	if g.ReportDir != "" {
		written, err := generative.WriteFeatures(g.ReportDir, opts, res)
		if err != nil {
			return out, fmt.Errorf("writing the reproduction features: %w", err)
		}
		for _, r := range written {
			repros[r.Property] = r
		}
	}
	for _, p := range res.Properties {
		run.Examples += p.Examples
		run.Planned += max(p.Planned, p.Examples)
		if p.Cut != "" {
			run.Cuts = append(run.Cuts, fmt.Sprintf("%s: %d of %d examples run: %s", p.Name(), p.Examples, p.Planned, p.Cut))
		}
		c := p.Verdict()
		if r, ok := repros[p.Name()]; ok {
			c.Reason += fmt.Sprintf("\nas a feature file: %s\n  run it: %s", r.Path, r.Run)
		}
		out.Cases = append(out.Cases, c)
	}
	switch {
	case res.Incomplete != "":
		out.Stopped = &verdict.Stop{Cause: verdict.StopGateway, Reason: res.Incomplete}
		run.Reason = "stopped: " + res.Incomplete
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

// notRun is the judgement of a generated run that could not start: a
// usage error is the run's error; a target that kept throttling, answers
// mostly a gateway's, or an interruption, while the run was being prepared
// stops the run; a gateway's page leaves the judge's set-up not judged;
// any other error (the target refused the accounts the run provisions)
// fails the judge's set-up, a case of its own.
func (g Generated) notRun(run verdict.JudgeRun, err error) (steps.Judgement, error) {
	var page contract.Gateway
	switch {
	case errors.Is(err, generative.ErrUsage):
		return steps.Judgement{}, err
	case errors.As(err, new(*contract.GatewayError)):
		run.State, run.Reason = verdict.JudgeNotRun, err.Error()
		return steps.Judgement{Run: run, Stopped: &verdict.Stop{Cause: verdict.StopGateway, Reason: err.Error()}}, nil
	case errors.As(err, &page):
		run.State, run.Reason = verdict.JudgeNotRun, err.Error()
		cause := verdict.GatewayCause(page)
		setup := verdict.Case{Name: "preparing the generated run", Status: verdict.StatusNotJudged, Reason: err.Error(), Cause: &cause}
		return steps.Judgement{Run: run, Cases: []verdict.Case{setup}}, nil
	case errors.Is(err, throttle.ErrKeptThrottling):
		run.State, run.Reason = verdict.JudgeNotRun, err.Error()
		return steps.Judgement{Run: run, Stopped: &verdict.Stop{Cause: verdict.StopThrottled, Reason: err.Error()}}, nil
	case errors.Is(err, generative.ErrInterrupted):
		run.State, run.Reason = verdict.JudgeNotRun, err.Error()
		return steps.Judgement{Run: run, Stopped: &verdict.Stop{Cause: verdict.StopInterrupted, Reason: err.Error()}}, nil
	}
	setup := verdict.Case{Name: "preparing the generated run", Status: verdict.StatusFailed, Reason: err.Error(),
		Cause: &verdict.Cause{Check: "the generated run's set-up", Headline: "the generated run could not be prepared: " + err.Error()}}
	return steps.Judgement{Run: run, Cases: []verdict.Case{setup}}, nil
}

// budget is what the run gives the judge, in words.
func (g Generated) budget(d time.Duration) string {
	examples, steps := g.Examples, g.Steps
	if examples <= 0 {
		examples = 100
	}
	if steps <= 0 {
		steps = 25
	}
	return fmt.Sprintf("%d examples a property, %d sequences of %d steps on average, %s", examples, max(examples/2, 1), steps, timeBudget(d))
}

// rerun is the command that runs the generated judge alone again, with
// the same seed: `conformance generate`, the deep mode.
func rerun(o generative.Options) string {
	args := []string{"conformance", "generate"}
	if o.ProfilePath != "" {
		args = append(append(args, "--target", o.Profile.BaseURL, "--profile", o.ProfilePath), o.Conn.Args()...)
	}
	args = append(args, "--seed", fmt.Sprint(o.Seed))
	if o.Examples > 0 && o.Examples != 100 {
		args = append(args, "--examples", fmt.Sprint(o.Examples))
	}
	if o.Strict {
		args = append(args, "--strict")
	}
	return strings.Join(args, " ")
}
