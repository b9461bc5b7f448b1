package report

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/verdict"
)

// MatrixRow is one row of the error tables of section 7 of the document
// (contract.Row: an operation, a status, the condition and one message)
// with how the run exercised it.
type MatrixRow struct {
	contract.Row
	// Exercised: the run received Status from Operation and, when the row
	// has a message, a scenario asserted that message on such an answer.
	Exercised bool `json:"exercised"`
	// Outcome is "passed" or "failed" for an exercised row (failed when a
	// scenario quoting the row failed), otherwise "failed", "skipped" or
	// "not exercised" after the scenarios that quote it.
	Outcome string `json:"outcome"`
	// Scenarios are the scenarios whose text quotes the row's status and
	// message.
	Scenarios []string `json:"scenarios,omitempty"`
}

// The outcomes of a matrix row that are not scenario statuses.
const (
	outcomeNotExercised = "not exercised"
	outcomeUnrun        = "not run"
)

// resultKey names a scenario by its feature file and name.
func resultKey(feature, name string) string { return path.Base(feature) + "\x00" + name }

// operationAreas are the areas whose scenarios may exercise an operation:
// its own, and the areas that cut across operations.
var operationAreas = map[string][]string{
	contract.OpListProducts: {"products"}, contract.OpSyncProducts: {"products"},
	contract.OpGetCustomerProfile: {"customers"}, contract.OpProvisionAccount: {"customers"},
	contract.OpListPaymentMethods: {"payment-methods"}, contract.OpCreatePayment: {"payments"}, contract.OpGetPaymentStatus: {"payment-status"},
}

// operationPhrases name each operation as the credential scenarios do.
var operationPhrases = map[string]string{
	contract.OpListProducts: "the product list", contract.OpSyncProducts: "the product sync",
	contract.OpGetCustomerProfile: "the profile", contract.OpProvisionAccount: "provision",
	contract.OpListPaymentMethods: "the payment methods", contract.OpCreatePayment: "the payment creation", contract.OpGetPaymentStatus: "the payment status",
}

// RowKey names an asserted (operation, status, message) triple, as the
// asserted set given to Section7 holds it.
func RowKey(op string, status int, msg string) string {
	return fmt.Sprintf("%s %d %s", op, status, msg)
}

// matrixRows lists the rows of section 7, without outcomes.
func matrixRows() []MatrixRow {
	var out []MatrixRow
	for _, r := range contract.MustRows() {
		out = append(out, MatrixRow{Row: r})
	}
	return out
}

// quotes reports whether a scenario of an area the row's operation belongs
// to (or of authentication or limits) names the row's status and message.
func (r MatrixRow) quotes(p *gherkin.Scenario) bool {
	if r.Message == "" {
		return false
	}
	areas := append([]string{"authentication", "limits"}, operationAreas[r.Operation]...)
	if !slices.ContainsFunc(p.Tags, func(t string) bool { return slices.Contains(areas, t) }) {
		return false
	}
	text := p.Text
	if slices.Contains(p.Tags, "authentication") && !strings.Contains(strings.ToLower(p.Name), operationPhrases[r.Operation]) {
		return false // a credential scenario quotes the rows of the endpoint its name calls
	}
	status := regexp.MustCompile(`\b` + fmt.Sprint(r.Status) + `\b`)
	return strings.Contains(text, `"`+r.Message+`"`) && status.MatchString(text)
}

// Section7 fills in the matrix of a run: the rows exercised (statuses
// received per operation, and the RowKey of each message asserted on such
// an answer) and their outcome (from the results of the scenarios of fts
// whose text quotes them, in the order of the areas). results is nil for a
// page rendered without a run.
func Section7(statuses map[string]map[int]bool, asserted map[string]bool, fts *gherkin.Features, results []verdict.Case) []MatrixRow {
	var scenarios []*gherkin.Scenario
	for _, f := range fts.ByArea() {
		scenarios = append(scenarios, f.Scenarios...)
	}
	rows := matrixRows()
	status := map[string]string{}
	for _, r := range results {
		status[resultKey(r.Feature, r.Name)] = r.Status
	}
	for i := range rows {
		r := &rows[i]
		if results == nil {
			r.Outcome = outcomeUnrun
		} else {
			r.Exercised = statuses[r.Operation][r.Status] && (r.Message == "" || asserted[RowKey(r.Operation, r.Status, r.Message)])
		}
		var seen []string
		for _, p := range scenarios {
			if r.quotes(p) {
				r.Scenarios = append(r.Scenarios, p.Name)
				seen = append(seen, status[resultKey(p.File.URI, p.Name)])
			}
		}
		if results == nil {
			continue
		}
		switch {
		case slices.Contains(seen, verdict.StatusFailed) || slices.Contains(seen, verdict.StatusUndefined):
			r.Outcome = verdict.StatusFailed
		case r.Exercised:
			r.Outcome = verdict.StatusPassed
		case len(seen) > 0 && slices.Contains(seen, verdict.StatusNotJudged) &&
			!slices.ContainsFunc(seen, func(s string) bool { return s != verdict.StatusSkipped && s != verdict.StatusNotJudged }):
			r.Outcome = verdict.StatusNotJudged
		case len(seen) > 0 && !slices.ContainsFunc(seen, func(s string) bool { return s != verdict.StatusSkipped }):
			r.Outcome = verdict.StatusSkipped
		default:
			r.Outcome = outcomeNotExercised
		}
	}
	return rows
}
