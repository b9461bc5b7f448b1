// Package judges is one conformance run that asks every judge of a target:
// the scenarios of the feature files (package steps), the generated
// properties and stateful sequences (package generative) and the
// concurrency probe (package probe), each in its own package. Run runs them through
// steps.Run, whose reports, console and verdict are then the whole run's:
// a property or a probe case is a test case like a scenario, and a run is
// PASS only when every judge's rules held.
//
// This package holds what joins them: which judges a run asks (--judges),
// the budget each is given, and each judge's adapter to the run
// (steps.Judge).
package judges

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// All are the judges of a run, in the order of its reports.
var All = []string{verdict.JudgeScenarios, verdict.JudgeGenerated, verdict.JudgeProbe}

// A run without a budget (--budget 0, the default) takes the time its
// judges need: every judge runs what it planned (the probe's waves, the
// generated examples), at the pace the target allows, so that a correct
// server behind a throttling gateway gets its verdict rather than a cut.
// noBudgetBound only keeps a run from hanging: no judge runs past it.
// With a budget, the scenarios run in full and the other judges share
// what they leave of it (at least a quarter); a judge it cuts below what
// it needs to judge its rules is not judged, and the run is INCOMPLETE,
// naming the budget that would do.
const noBudgetBound = 30 * time.Minute

// Options configure a run of every judge.
type Options struct {
	// Suite are the options of the run as the scenarios take them: the
	// target, the profile, the client, the reports. Its Judges,
	// NoScenarios and Budget are set by Run.
	Suite steps.Options
	// Judges are the judges asked (default All): ParseJudges reads them.
	// LeftOut says why the others were not ("" says --judges left them out).
	Judges  []string
	LeftOut string
	// Budget is the time the run aims at in all (0: none, each judge
	// runs what it planned, within noBudgetBound).
	Budget time.Duration
	// Generated configures the generated judge; Probe the probe.
	Generated Generated
	Probe     Probe
	// Watch, when set, wraps each judge asked after the scenarios: a
	// caller that watches each judge's run (a test that counts what a
	// server changed during it).
	Watch func(steps.Judge) steps.Judge
}

// ParseJudges reads a comma-separated list of judges (--judges): "" is
// every judge. An unknown name is an error naming the judges there are.
func ParseJudges(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return slices.Clone(All), nil
	}
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(All, name) {
			return nil, fmt.Errorf("unknown judge %q in --judges (the judges are %s)", name, strings.Join(All, ", "))
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--judges names no judge (the judges are %s)", strings.Join(All, ", "))
	}
	return out, nil
}

// Run runs the judges of opts against the target of opts.Suite, and
// writes the one report of them all (steps.Run's).
func Run(ctx context.Context, opts Options) (steps.Result, error) {
	asked := opts.Judges
	if len(asked) == 0 {
		asked = All
	}
	suite := opts.Suite
	suite.NoScenarios = !slices.Contains(asked, verdict.JudgeScenarios)
	suite.LeftOut = opts.LeftOut
	suite.Budget = max(opts.Budget, 0)
	suite.Judges = nil
	// The probe runs before the generated judge: it is bounded by its own
	// requests and takes little of its share, which the generated judge,
	// last, then takes (steps' judgeBudget).
	for _, name := range []string{verdict.JudgeProbe, verdict.JudgeGenerated} {
		if !slices.Contains(asked, name) {
			suite.Judges = append(suite.Judges, steps.NotAsked(name, opts.LeftOut))
			continue
		}
		var j steps.Judge = opts.Probe
		if name == verdict.JudgeGenerated {
			j = opts.Generated
		}
		if opts.Watch != nil {
			j = opts.Watch(j)
		}
		suite.Judges = append(suite.Judges, j)
	}
	return steps.Run(ctx, suite)
}
