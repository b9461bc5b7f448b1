package verdict

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// The status of a case, whichever judge ran it. A skipped case was not
// run: the profile lacks what it needs, or the run stopped before it. A
// case not judged ran, but the target kept it from observing its rule (it
// refused what the rule needs with an answer the document allows, kept
// throttling, answered with a gateway's page, or the wallet could not pay
// for it): the rule was neither passed nor failed, and the run is not a
// pass. These are the only spellings: every judge and every writer uses
// them.
const (
	StatusPassed    = "passed"
	StatusFailed    = "failed"
	StatusSkipped   = "skipped"
	StatusUndefined = "undefined"
	StatusNotJudged = "not-judged"
)

// Case is the outcome of one scenario, or of one case of another
// judge of the run (a generated property, a probe case), which the writers
// show as a test case like a scenario.
type Case struct {
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
	Warnings []contract.Warning `json:"warnings,omitempty"`
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

// EndedAt is the index of the step the scenario ended on (failed, or had
// no definition), or the number of steps: the steps after it did not run,
// whatever godog says of them.
func (r Case) EndedAt() int {
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
func (r Case) NoAnswer() bool {
	return !r.UnansweredAt.IsZero() && (r.Status == StatusFailed || r.NotRun)
}

// OutcomeWarned is how the writers show a passed scenario that carries
// warnings; it is never a Case.Status.
const OutcomeWarned = "passed-with-warnings"

// outcome is the scenario's status as the writers show it: a passed
// scenario with warnings is OutcomeWarned.
func (r Case) Outcome() string {
	if r.Status == StatusPassed && len(r.Warnings) > 0 {
		return OutcomeWarned
	}
	return r.Status
}

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

// Key is what failures of one cause share: what is broken in the answer
// and the rule it breaks, whichever operation answered and whichever
// scenario's values it was found with. A field of openapi.yaml is the
// field and its rule; another check is the sentence checked and what it
// expected, its numbers left out (a page count of 14 in one scenario and
// of 3 in another is one page count rounded down), so that one defect
// reads as one cause listing the operations it was found in.
func (c Cause) Key() string {
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

// Counts counts scenarios (and the cases of the run's other judges) by
// outcome.
type Counts struct {
	Passed int `json:"passed"`
	// Warned counts the passed scenarios that carry warnings.
	Warned    int `json:"passed_with_warnings"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Undefined int `json:"undefined"`
	// NotJudged counts the scenarios whose rule was not judged: the target
	// refused what they needed to observe it.
	NotJudged int `json:"not_judged"`
}

// Total is the number of cases counted.
func (c Counts) Total() int { return c.Passed + c.Failed + c.Skipped + c.Undefined + c.NotJudged }

// Add counts r.
func (c *Counts) Add(r Case) {
	switch r.Status {
	case StatusPassed:
		c.Passed++
		if len(r.Warnings) > 0 {
			c.Warned++
		}
	case StatusFailed:
		c.Failed++
	case StatusSkipped:
		c.Skipped++
	case StatusNotJudged:
		c.NotJudged++
	default:
		c.Undefined++
	}
}

// checkGateway is the check of the cause of a case a gateway's answer kept
// from being judged (GatewayCause).
const checkGateway = "a gateway answered"

// GatewayCause is the cause of a case (a scenario, a generated property, a
// probe case) that a gateway's answer g kept from being judged: one per
// gateway status and page, whatever operation it answered.
func GatewayCause(g contract.Gateway) Cause {
	return Cause{Check: checkGateway, Expected: strconv.Itoa(g.Status) + " " + g.Reason, Headline: g.Error()}
}

// Selects reports whether only selects the case named name: "" selects
// every case; otherwise the name contains one of only's parts, separated
// by "|", whatever their case (the generated mode's --only, and a rerun of
// a judge's failed cases).
func Selects(only, name string) bool {
	if only == "" {
		return true
	}
	name = strings.ToLower(name)
	for _, part := range strings.Split(strings.ToLower(only), "|") {
		if part != "" && strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// CheckOpenAPI is the check of an answer's departure from openapi.yaml
// other than its label (contract.SentenceContentType).
const CheckOpenAPI = "openapi.yaml (the contract of sections 2 to 7)"

// answerCause is the cause of a case that failed on an answer's departure
// from openapi.yaml or §1 (err holds a *contract.AnswerError, joined with
// contract.ErrContentType when the label is wrong, as Validator.Validate
// and contract.CheckEnvelope give it): the check, field and rule of its
// first violation, whichever judge read the answer, so that one defect is
// one cause across the judges of a run. ok is false when err holds none.
func answerCause(op string, err error) (c Cause, ok bool) {
	var ae *contract.AnswerError
	if !errors.As(err, &ae) || len(ae.Violations) == 0 {
		return Cause{}, false
	}
	v := ae.Violations[0]
	check := CheckOpenAPI
	if errors.Is(err, contract.ErrContentType) {
		check = contract.SentenceContentType
	}
	return Cause{Operation: op, Check: check, Field: v.Field(), Rule: string(v.Rule), Headline: v.Headline(ae.Operation)}, true
}

// ErrorCause is the cause of a case that failed on err, named by what the
// answer broke rather than by the check that noticed: the answer's
// departure from openapi.yaml or §1 (answerCause), or the document's rule
// a check of internal/contract reports broken (contract.Broken: its
// sentence and the rule). ok is false when err says neither; the judge
// then names the cause itself.
func ErrorCause(op string, err error) (c Cause, ok bool) {
	if c, ok := answerCause(op, err); ok {
		return c, true
	}
	if errors.Is(err, contract.ErrContentType) {
		// The label alone, the body JSON: as the scenarios name it.
		return Cause{Operation: op, Check: contract.SentenceContentType, Expected: "Content-Type application/json", Headline: err.Error()}, true
	}
	var am *contract.AnswerMismatch
	if errors.As(err, &am) {
		// The row of section 7 the answer is not, whichever check wanted it.
		return Cause{Operation: op, Check: contract.MessageRow(am.WantMessage), Expected: am.Want(), Headline: err.Error()}, true
	}
	br, ok := contract.Broken(err)
	if !ok {
		return Cause{}, false
	}
	return Cause{Operation: op, Check: br.Sentence, Expected: br.Rule.Error(), Headline: err.Error()}, true
}
