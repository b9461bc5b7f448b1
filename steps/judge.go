package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// A run asks its scenarios first, then each judge of Options.Judges in
// turn (the generated properties and sequences, the concurrency probe),
// against the same target, with the same client and the same patience with
// a target that throttles. Every judge's cases go into the run's one
// summary, and so into every report and the one verdict.

// Judge is a judge a run asks after its scenarios.
type Judge interface {
	// Name is how --judges and the reports name the judge
	// (verdict.JudgeGenerated, verdict.JudgeProbe).
	Name() string
	// Judge judges the target of env within env.Budget, telling each case
	// to env.Case as it ends. It returns an error only when it could not
	// take place (a usage error); what it found is in its Judgement.
	Judge(ctx context.Context, env JudgeEnv) (Judgement, error)
}

// JudgeEnv is what a run gives a judge.
type JudgeEnv struct {
	Profile *profiles.Profile
	// ProfilePath is the file Profile was read from, which reproductions
	// and the commands a run prints name ("" for the embedded reference).
	ProfilePath string
	// HTTPClient is the run's client (its TLS, its headers, its timeout);
	// Conn the options it was built from, for a judge that builds its own
	// (the probe) or repeats them in a reproduction.
	HTTPClient     *http.Client
	Conn           transport.Options
	RequestTimeout time.Duration
	// Gate is the run's patience with a target that throttles: shared by
	// the scenarios and every judge, so that the run holds off for at most
	// --max-throttle-wait in all.
	Gate *throttle.Gate
	// Strict turns warnings into failures.
	Strict bool
	// Budget is the time the run gives the judge (0: the judge's own).
	Budget time.Duration
	// Case receives each case as it ends, for the run's console.
	Case func(verdict.Case)
	// Created are the payments the scenarios created, in the order they
	// were answered.
	Created []CreatedPayment
}

// Judgement is what a judge found: what it ran, and its cases (each
// with Judge set to the judge's name).
type Judgement struct {
	Run   verdict.JudgeRun
	Cases []verdict.Case
	// Stopped is set when the judge did not run to its end because the
	// target kept throttling (verdict.StopThrottled) or the run was
	// interrupted (verdict.StopInterrupted): its cases not run to their
	// end are skipped, NotRun.
	Stopped *verdict.Stop
}

// LeftOutWithJudges is why a judge the run does not ask was left out, unless
// Options.LeftOut says otherwise.
const LeftOutWithJudges = "left out with --judges"

// NotAsked is a judge the run was narrowed not to ask, for the reason
// why ("" is LeftOutWithJudges): the reports name it as not asked.
func NotAsked(name, why string) Judge { return notAsked{name, leftOut(why)} }

// leftOut is why, or LeftOutWithJudges.
func leftOut(why string) string {
	if why == "" {
		return LeftOutWithJudges
	}
	return why
}

type notAsked struct{ name, why string }

func (n notAsked) Name() string { return n.name }

func (n notAsked) Judge(context.Context, JudgeEnv) (Judgement, error) {
	return Judgement{Run: verdict.JudgeRun{Name: n.name, State: verdict.JudgeNotAsked, Reason: n.why}}, nil
}

// askJudges asks each judge of opts in turn, unless the run has stopped:
// each gets its share of the time the run's budget leaves (judgeBudget).
// It returns what they did and found, and the stop of a judge that did not
// run to its end.
func (h *harness) askJudges(ctx context.Context, opts Options, start time.Time) ([]Judgement, *verdict.Stop, error) {
	var out []Judgement
	var stop *verdict.Stop
	for i, j := range opts.Judges {
		if reason := h.notStarted(); reason != "" || stop != nil {
			if stop != nil {
				reason = stop.Reason
			}
			reason = strings.TrimPrefix(reason, "not run: ") // the state says it
			out = append(out, Judgement{Run: verdict.JudgeRun{Name: j.Name(), State: verdict.JudgeNotRun, Reason: reason}})
			continue
		}
		env := JudgeEnv{Profile: h.profile, ProfilePath: opts.ProfilePath, HTTPClient: h.http, Conn: opts.Target, RequestTimeout: h.timeout, Gate: h.gate, Strict: h.strict,
			Budget: judgeBudget(opts.Budget, time.Since(start), len(opts.Judges)-i), Case: h.fmt.printCase, Created: h.created.list()}
		got, err := j.Judge(ctx, env)
		if err != nil {
			return out, nil, fmt.Errorf("%w: the %s judge: %w", ErrUsage, j.Name(), err)
		}
		for k := range got.Cases {
			got.Cases[k].Judge, got.Cases[k].Feature = j.Name(), j.Name()
		}
		got.Run.Name = j.Name()
		got.Run.Counts = verdict.Counts{}
		for _, c := range got.Cases {
			got.Run.Counts.Add(c)
		}
		if got.Stopped != nil {
			stop = got.Stopped
			switch stop.Cause {
			case verdict.StopThrottled:
				h.keptThrottling(fmt.Errorf("%s", stop.Reason))
			case verdict.StopGateway:
				err := h.gate.Stopped() // the run's gate stopped the judge
				if err == nil {
					err = fmt.Errorf("%w: %s", contract.ErrGateway, stop.Reason)
				}
				h.gatewayStopped(err)
			}
		}
		out = append(out, got)
	}
	return out, stop, nil
}

// judgeBudget is the time the run gives the next of left judges: the run's
// budget less what it has taken so far, shared evenly between the judges
// still to run (the last takes what the others leave); at least a quarter
// of the budget, so that a slow target's scenarios do not leave the other
// judges nothing. 0 (no budget) leaves each judge its own.
func judgeBudget(budget, taken time.Duration, left int) time.Duration {
	if budget <= 0 || left <= 0 {
		return 0
	}
	rest := max(budget-taken, budget/4)
	return rest / time.Duration(left)
}
