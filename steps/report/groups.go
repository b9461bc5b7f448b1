package report

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Cause is what a failed scenario failed on, as the check that failed
// recorded it: the operation whose answer it judged, the check (the
// sentence of the document it rests on) and either the field and rule of
// openapi.yaml the answer broke or what the check expected. Failures with
// the same cause are one group in every writer (Schemathesis prints each
// distinct failure once; pytest's short summary lists each failure on one
// line): the key is made of these fields, never of the failure's text.
type Cause struct {
	Operation string `json:"operation,omitempty"`
	Check     string `json:"check,omitempty"`
	// Field names the value as the document's tables do
	// ("data.products[].operator.logo"); Rule is the rule of openapi.yaml
	// it broke ("missing required property").
	Field string `json:"field,omitempty"`
	Rule  string `json:"rule,omitempty"`
	// Expected is what a check of a value expected, when no field of
	// openapi.yaml names the failure.
	Expected string `json:"expected,omitempty"`
	// Headline says the cause in one sentence.
	Headline string `json:"headline"`
	// Blocked marks the cause of a scenario not judged because a
	// precondition (a product to pay for, an account, a wallet reading)
	// could not be met: the answer broke the contract where the scenario
	// only gathered what it needs.
	Blocked bool `json:"blocked,omitempty"`
}

// key is what failures of one cause share: what is broken in the answer
// and the rule it breaks, whichever operation answered and whichever
// scenario's values it was found with. A field of openapi.yaml is the
// field and its rule; another check is the sentence checked and what it
// expected, its numbers left out (a page count of 14 in one scenario and
// of 3 in another is one page count rounded down), so that one defect
// reads as one cause listing the operations it was found in.
func (c Cause) key() string {
	if c.Field != "" {
		return strings.Join([]string{c.Check, c.Field, c.Rule}, "\x00")
	}
	what := c.Expected
	if what == "" {
		what = strings.TrimPrefix(c.Headline, c.Operation+": ")
	}
	return strings.Join([]string{c.Check, numbers.ReplaceAllString(what, "#")}, "\x00")
}

// numbers are the values a cause's key leaves out.
var numbers = regexp.MustCompile(`[0-9]+`)

// causeOf is the cause of a failed or undefined scenario: the one its
// failed check recorded, or, for a failure no check describes (a step
// without a definition, a feature that calls steps in the wrong order),
// its first line.
func causeOf(r ScenarioResult) Cause {
	if r.Cause != nil {
		return *r.Cause
	}
	first, _, _ := strings.Cut(strings.TrimSpace(r.Reason), "\n")
	if r.Status == StatusUndefined {
		first = "a step has no definition: " + first
	}
	return Cause{Headline: first}
}

// FailureGroup is the failed scenarios of one cause, or the scenarios not
// judged because of one refusal of the target (NotJudged).
type FailureGroup struct {
	Cause
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
	n := countCases(g.Count, g.Judge)
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
func GroupFailures(results []ScenarioResult) []FailureGroup {
	return groupBy(results, false, StatusFailed, StatusUndefined)
}

// GroupNotJudged groups the scenarios of results that were not judged by
// what the target refused, the group of the most scenarios first.
func GroupNotJudged(results []ScenarioResult) []FailureGroup {
	return groupBy(results, true, StatusNotJudged)
}

// groupBy groups the results of the statuses by cause.
func groupBy(results []ScenarioResult, notJudged bool, statuses ...string) []FailureGroup {
	var groups []FailureGroup
	index := map[string]int{}
	for _, r := range results {
		if !slices.Contains(statuses, r.Status) {
			continue
		}
		c, judge := causeOf(r), cmp.Or(r.Judge, JudgeScenarios)
		i, ok := index[c.key()]
		if !ok {
			i = len(groups)
			index[c.key()] = i
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
	return "blocks " + countCases(n, judge)
}
