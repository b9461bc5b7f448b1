package report

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/partnercommerce/conformance/verdict"
)

// causeOf is the cause of a failed or undefined scenario: the one its
// failed check recorded, or, for a failure no check describes (a step
// without a definition, a feature that calls steps in the wrong order),
// its first line.
func causeOf(r verdict.Case) verdict.Cause {
	if r.Cause != nil {
		return *r.Cause
	}
	first, _, _ := strings.Cut(strings.TrimSpace(r.Reason), "\n")
	if r.Status == verdict.StatusUndefined {
		first = "a step has no definition: " + first
	}
	return verdict.Cause{Headline: first}
}

// FailureGroup is the failed scenarios of one cause, or the scenarios not
// judged because of one refusal of the target (NotJudged).
type FailureGroup struct {
	verdict.Cause
	// Count is the number of scenarios that failed on the cause.
	Count int `json:"count"`
	// Scenarios are the scenarios, first the one whose failure the group
	// shows (its location when it has one, and its name).
	Scenarios []GroupScenario `json:"scenarios"`
	// NotJudged marks a group of scenarios not judged.
	NotJudged bool `json:"not_judged,omitempty"`
	// Operations are the operations whose answers showed the cause, in
	// the order found (the headline's first), when there are several.
	Operations []string `json:"operations,omitempty"`
	// Judge is the judge of its scenarios ("" when they are of several).
	Judge string `json:"judge"`
}

// GroupScenario is one scenario of a failure group.
type GroupScenario struct {
	Location string `json:"location,omitempty"`
	Name     string `json:"name"`
}

// String is the scenario on one line: where and which.
func (s GroupScenario) String() string {
	if s.Location == "" {
		return s.Name
	}
	return s.Location + "  " + s.Name
}

// Title is the group in one line: its count and its cause, "49 scenarios
// failed on one check: syncProducts answered without ...", "18 scenarios
// not judged: every gateway payment was refused with 422 ...".
func (g FailureGroup) Title() string {
	n := verdict.CountCases(g.Count, g.Judge)
	headline := g.Headline
	if len(g.Operations) > 1 {
		headline += fmt.Sprintf(" (and so did %s)", strings.Join(g.Operations[1:], ", "))
	}
	switch {
	case g.NotJudged && g.Blocked:
		return fmt.Sprintf("%s: %s", blocks(g.Count, g.Judge), headline)
	case g.NotJudged:
		return fmt.Sprintf("%s not judged: %s", n, headline)
	case g.Count == 1:
		return n + " failed: " + headline
	}
	return fmt.Sprintf("%s failed on one check: %s", n, headline)
}

// GroupFailures groups the failed and undefined scenarios of results by
// cause, the group of the most scenarios first (then in the order of the
// results).
func GroupFailures(results []verdict.Case) []FailureGroup {
	return groupBy(results, false, verdict.StatusFailed, verdict.StatusUndefined)
}

// GroupNotJudged groups the scenarios of results that were not judged by
// what the target refused, the group of the most scenarios first.
func GroupNotJudged(results []verdict.Case) []FailureGroup {
	return groupBy(results, true, verdict.StatusNotJudged)
}

// groupBy groups the results of the statuses by cause.
func groupBy(results []verdict.Case, notJudged bool, statuses ...string) []FailureGroup {
	var groups []FailureGroup
	index := map[string]int{}
	for _, r := range results {
		if !slices.Contains(statuses, r.Status) {
			continue
		}
		c, judge := causeOf(r), cmp.Or(r.Judge, verdict.JudgeScenarios)
		i, ok := index[c.Key()]
		if !ok {
			i = len(groups)
			index[c.Key()] = i
			groups = append(groups, FailureGroup{Cause: c, NotJudged: notJudged, Judge: judge})
		}
		if groups[i].Judge != judge {
			groups[i].Judge = ""
		}
		if c.Operation != "" && !slices.Contains(groups[i].Operations, c.Operation) {
			groups[i].Operations = append(groups[i].Operations, c.Operation)
		}
		groups[i].Count++
		groups[i].Scenarios = append(groups[i].Scenarios, GroupScenario{Location: r.Location, Name: r.Name})
	}
	for i := range groups {
		if len(groups[i].Operations) < 2 {
			groups[i].Operations = nil
		}
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].Count > groups[j].Count })
	if groups == nil {
		groups = []FailureGroup{}
	}
	return groups
}

// blocks says how many cases a precondition's cause blocked: "blocks 26
// scenarios".
func blocks(n int, judge string) string {
	return "blocks " + verdict.CountCases(n, judge)
}
