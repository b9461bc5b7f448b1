package steps

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// MatrixRow is one row of the error tables of section 7 of the document, as
// openapi.yaml carries it: an operation, a status, the condition (the
// response's description) and one message. Status and message come from
// the contract; Exercised and Outcome from the run.
type MatrixRow struct {
	// Table is the table of section 7: Products, Customer or Payment.
	Table     string `json:"table"`
	Operation string `json:"operation"`
	Status    int    `json:"status"`
	Condition string `json:"condition"`
	// Message is the exact message, or its start when Prefix is set; empty
	// when the document fixes no message (a 500 or 422 that follows another
	// message).
	Message string `json:"message,omitempty"`
	Prefix  bool   `json:"prefix,omitempty"`
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
	OutcomeNotExercised = "not exercised"
	OutcomeNotRun       = "not run"
)

// sectionTables maps the tags of openapi.yaml to the tables of section 7.
var sectionTables = map[string]string{"Products": "Products", "Customers": "Customer", "Payments": "Payment"}

// operationOrder is the order of the operations in the document (4.1 to 4.7).
var operationOrder = []string{"listProducts", "syncProducts", "getCustomerProfile", "provisionAccount",
	"listPaymentMethods", "createPayment", "getPaymentStatus"}

// resultKey names a scenario by its feature file and name.
func resultKey(feature, name string) string { return path.Base(feature) + "\x00" + name }

// operationRank is the place of an operation in the document.
func operationRank(op string) int {
	for i, o := range operationOrder {
		if strings.EqualFold(o, op) {
			return i
		}
	}
	return len(operationOrder)
}

// operationAreas are the areas whose scenarios may exercise an operation:
// its own, and the areas that cut across operations.
var operationAreas = map[string][]string{
	"listproducts": {"products"}, "syncproducts": {"products"},
	"getcustomerprofile": {"customers"}, "provisionaccount": {"customers"},
	"listpaymentmethods": {"payment-methods"}, "createpayment": {"payments"}, "getpaymentstatus": {"payment-status"},
}

// operationPhrases name each operation as the credential scenarios do.
var operationPhrases = map[string]string{
	"listproducts": "the product list", "syncproducts": "the product sync",
	"getcustomerprofile": "the profile", "provisionaccount": "provision",
	"listpaymentmethods": "the payment methods", "createpayment": "the payment creation", "getpaymentstatus": "the payment status",
}

// rowKey names an asserted (operation, status, message) triple.
func rowKey(op string, status int, msg string) string {
	return fmt.Sprintf("%s %d %s", op, status, msg)
}

// matrixRows lists the rows of section 7 from openapi.yaml, without outcomes.
func matrixRows(doc *openapi3.T) []MatrixRow {
	type opInfo struct {
		op   *openapi3.Operation
		rank int
	}
	var ops []opInfo
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops = append(ops, opInfo{op, operationRank(op.OperationID)})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].rank != ops[j].rank {
			return ops[i].rank < ops[j].rank
		}
		return ops[i].op.OperationID < ops[j].op.OperationID
	})
	var rows []MatrixRow
	for _, oi := range ops {
		op := oi.op
		table := ""
		for _, t := range op.Tags {
			if name, ok := sectionTables[t]; ok {
				table = name
			}
		}
		var codes []int
		byCode := map[int]*openapi3.Response{}
		for code, ref := range op.Responses.Map() {
			var n int
			if _, err := fmt.Sscanf(code, "%d", &n); err != nil || ref == nil || ref.Value == nil {
				continue // default: a status the document does not show
			}
			codes = append(codes, n)
			byCode[n] = ref.Value
		}
		sort.Ints(codes)
		for _, code := range codes {
			resp := byCode[code]
			cond := ""
			if resp.Description != nil {
				cond = strings.Join(strings.Fields(*resp.Description), " ")
			}
			base := MatrixRow{Table: table, Operation: op.OperationID, Status: code, Condition: cond}
			msgs, prefixes := extStrings(resp.Extensions["x-messages"]), extStrings(resp.Extensions["x-message-prefixes"])
			for _, m := range msgs {
				r := base
				r.Message = m
				rows = append(rows, r)
			}
			for _, p := range prefixes {
				r := base
				r.Message, r.Prefix = p, true
				rows = append(rows, r)
			}
			if len(msgs)+len(prefixes) == 0 {
				rows = append(rows, base)
			}
		}
	}
	return rows
}

// extStrings reads an extension holding a list of strings.
func extStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// quotes reports whether a scenario of an area the row's operation belongs
// to (or of authentication or limits) names the row's status and message.
func (r MatrixRow) quotes(p pickleText) bool {
	if r.Message == "" {
		return false
	}
	areas := append([]string{"authentication", "limits"}, operationAreas[strings.ToLower(r.Operation)]...)
	if !slices.ContainsFunc(p.Tags, func(t string) bool { return slices.Contains(areas, t) }) {
		return false
	}
	text := p.Text
	if slices.Contains(p.Tags, "authentication") && !strings.Contains(strings.ToLower(p.Name), operationPhrases[strings.ToLower(r.Operation)]) {
		return false // a credential scenario quotes the rows of the endpoint its name calls
	}
	status := regexp.MustCompile(`\b` + fmt.Sprint(r.Status) + `\b`)
	return strings.Contains(text, `"`+r.Message+`"`) && status.MatchString(text)
}

// section7 fills in the matrix of a run: rows exercised (from coverage) and
// their outcome (from the scenarios that quote them). texts maps a
// scenario's feature and name to its text; results may be nil for a page
// rendered without a run.
func section7(doc *openapi3.T, statuses map[string]map[int]bool, asserted map[string]bool,
	scenarios []pickleText, results []ScenarioResult) []MatrixRow {
	rows := matrixRows(doc)
	status := map[string]string{}
	for _, r := range results {
		status[resultKey(r.Feature, r.Name)] = r.Status
	}
	for i := range rows {
		r := &rows[i]
		if results == nil {
			r.Outcome = OutcomeNotRun
		} else {
			r.Exercised = statuses[r.Operation][r.Status] && (r.Message == "" || asserted[rowKey(r.Operation, r.Status, r.Message)])
		}
		var seen []string
		for _, p := range scenarios {
			if r.quotes(p) {
				r.Scenarios = append(r.Scenarios, p.Name)
				seen = append(seen, status[resultKey(p.Feature, p.Name)])
			}
		}
		if results == nil {
			continue
		}
		switch {
		case slices.Contains(seen, StatusFailed) || slices.Contains(seen, StatusUndefined):
			r.Outcome = StatusFailed
		case r.Exercised:
			r.Outcome = StatusPassed
		case len(seen) > 0 && !slices.ContainsFunc(seen, func(s string) bool { return s != StatusSkipped }):
			r.Outcome = StatusSkipped
		default:
			r.Outcome = OutcomeNotExercised
		}
	}
	return rows
}
