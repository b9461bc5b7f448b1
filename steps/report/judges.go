package report

import (
	"fmt"

	"github.com/partnercommerce/conformance/verdict"
)

// A run asks several judges of one target, and gives one verdict: the
// scenarios of the feature files, the generated properties and sequences,
// and the concurrency probe. Each judge's cases are ScenarioResults of the
// one Summary (a property or a probe case is a test case like a scenario),
// and each judge says what it ran in a verdict.JudgeRun: its budget, its seed, how
// many examples of how many it ran, and what cut them.

// NotJudgedLine says in one line what was not judged and why: the title
// of the one cause, or the count of cases and causes.
func (s Summary) NotJudgedLine() string {
	switch len(s.NotJudgedGroups) {
	case 0:
		return ""
	case 1:
		return s.NotJudgedGroups[0].Title()
	}
	n := 0
	for _, g := range s.NotJudgedGroups {
		n += g.Count
	}
	return fmt.Sprintf("%d not judged, on %d causes (listed above)", n, len(s.NotJudgedGroups))
}

// judgeCases are the cases of a judge of the run other than the
// scenarios, with what the judge ran.
type judgeCases struct {
	run   verdict.JudgeRun
	cases []verdict.Case
}

// otherJudges are the cases of the run's judges other than the scenarios
// (a generated property, a probe case), by judge in the order of
// s.Judges, leaving out a judge without cases.
func (s Summary) otherJudges() []judgeCases {
	byJudge := map[string][]verdict.Case{}
	for _, r := range s.Scenarios {
		if r.Entry == nil && r.Judge != "" && r.Judge != verdict.JudgeScenarios {
			byJudge[r.Judge] = append(byJudge[r.Judge], r)
		}
	}
	var out []judgeCases
	for _, j := range s.Judges {
		if cases := byJudge[j.Name]; len(cases) > 0 {
			out = append(out, judgeCases{run: j, cases: cases})
		}
	}
	return out
}
