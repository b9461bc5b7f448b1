// Package report writes what a run of the conformance suite found, from the
// run's result alone: the console (pretty and progress) and its closing
// summary, JUnit XML, cucumber JSON, summary.json, rerun.txt, the HTML page
// with the section 7 matrix, and the pages made from the feature files
// without a run (the living documentation, docs/conformance-readings.md).
// Package steps runs the scenarios and produces the Summary these functions
// read; nothing here runs a scenario.
package report

import (
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// The status of a scenario (written in internal/contract, which the
// generated mode shares).
const (
	StatusPassed    = contract.StatusPassed
	StatusFailed    = contract.StatusFailed
	StatusSkipped   = contract.StatusSkipped
	StatusUndefined = contract.StatusUndefined
	StatusNotJudged = contract.StatusNotJudged
)

// Warning is a reading a scenario's server did not follow.
type Warning = contract.Warning

// ScenarioResult is the outcome of one scenario, or of one case of another
// judge of the run (a generated property, a probe case), which the writers
// show as a test case like a scenario.
type ScenarioResult struct {
	Name string `json:"name"`
	// Feature is the feature file of a scenario; for a case of another
	// judge, the judge's name (Judge).
	Feature string `json:"feature"`
	// Judge is the judge whose case it is: JudgeScenarios, or the name of
	// another judge of the run (JudgeRun.Name).
	Judge  string   `json:"judge"`
	Tags   []string `json:"tags"`
	Status string   `json:"status"`
	// Reason is the text of a failure (what was sent, what came back,
	// what was expected), or why a scenario was skipped or not judged.
	Reason string `json:"reason,omitempty"`
	// Cause is what the scenario failed on, as its failed check recorded
	// it (nil when no check did): the key of its failure group; for a
	// scenario not judged, what the target refused (the key of its group
	// of scenarios not judged).
	Cause *Cause `json:"cause,omitempty"`
	// Warnings are the readings the server did not follow.
	Warnings []Warning `json:"warnings,omitempty"`
	// Advisory is set on a scenario that rests on a reading as a whole
	// (tag @reading): its failure is a warning, unless the run is strict.
	Advisory bool `json:"advisory,omitempty"`
	// Readings are the ids of the readings the scenario applied.
	Readings []string `json:"readings,omitempty"`
	// Location is file:line of the scenario (of the example row for a
	// scenario outline), as the runner accepts it to run it again.
	Location string `json:"location,omitempty"`
	// Seconds is how long the scenario ran.
	Seconds float64 `json:"seconds"`

	// The fields below serve the writers during the run that produced the
	// result; summary.json does not hold them.

	// Steps are the scenario's steps as godog ran them, for the console,
	// the page and cucumber.json.
	Steps []StepRun `json:"-"`
	// Entry is the scenario in the feature files, or nil.
	Entry *gherkin.Scenario `json:"-"`
	// NotRun marks a skipped scenario the run's stop left unfinished or
	// unstarted; UnansweredAt is when its last request got no answer.
	NotRun       bool      `json:"-"`
	UnansweredAt time.Time `json:"-"`
	// UnansweredOn is the endpoint ("POST /client/v2/payment") of that
	// request, or of the request not sent because the target had stopped
	// answering the endpoint.
	UnansweredOn string `json:"-"`
}

// StepRun is one step as godog ran it: its text, godog's status of it
// (passed, failed, skipped, undefined, pending or ambiguous), the error of a
// failed step, where its definition is registered (file:line) and how long
// it ran.
type StepRun struct {
	Text     string
	Status   string
	Err      error
	Location string
	Nanos    int64
}

// endedAt is the index of the step the scenario ended on (failed, or had
// no definition), or the number of steps: the steps after it did not run,
// whatever godog says of them.
func (r ScenarioResult) endedAt() int {
	for i, st := range r.Steps {
		switch st.Status {
		case "failed", "undefined", "pending", "ambiguous":
			return i
		}
	}
	return len(r.Steps)
}

// NoAnswer reports whether the scenario failed, or was not run to its end,
// because its last request got no answer.
func (r ScenarioResult) NoAnswer() bool {
	return !r.UnansweredAt.IsZero() && (r.Status == StatusFailed || r.NotRun)
}

// outcomeWarned is how the writers show a passed scenario that carries
// warnings; it is never a ScenarioResult.Status.
const outcomeWarned = "passed-with-warnings"

// outcome is the scenario's status as the writers show it: a passed
// scenario with warnings is outcomeWarned.
func (r ScenarioResult) outcome() string {
	if r.Status == StatusPassed && len(r.Warnings) > 0 {
		return outcomeWarned
	}
	return r.Status
}
