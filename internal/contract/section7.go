package contract

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// Row is one row of the error tables of section 7 of the document, as
// openapi.yaml carries it: an operation, a status, the condition (the
// response's description) and one message the row allows (x-messages), or
// the start of one (x-message-prefixes).
type Row struct {
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
}

// Allows reports whether msg is the row's message (or starts with it).
func (r Row) Allows(msg string) bool {
	if r.Prefix {
		return strings.HasPrefix(msg, r.Message)
	}
	return r.Message != "" && msg == r.Message
}

// sectionTables maps the tags of openapi.yaml to the tables of section 7.
var sectionTables = map[string]string{"Products": "Products", "Customers": "Customer", "Payments": "Payment"}

var (
	rowsOnce sync.Once
	rows     []Row
	rowsErr  error
)

// sectionRows lists the rows of section 7 from openapi.yaml, read once, in the
// document's order of operations (4.1 to 4.7) and by status.
func sectionRows() ([]Row, error) {
	rowsOnce.Do(func() {
		doc, err := Spec()
		if err != nil {
			rowsErr = err
			return
		}
		rows = readRows(doc)
	})
	return slices.Clone(rows), rowsErr
}

// MustRows is sectionRows for callers whose tests rule out an unreadable
// embedded document.
func MustRows() []Row {
	r, err := sectionRows()
	if err != nil {
		panic(err)
	}
	return r
}

// RowsOf lists the rows of one operation and status.
func RowsOf(op string, status int) []Row {
	var out []Row
	for _, r := range MustRows() {
		if r.Operation == op && r.Status == status {
			out = append(out, r)
		}
	}
	return out
}

// OperationRank is the place of an operation in the document (4.1 to 4.7);
// an unknown one comes last.
func OperationRank(op string) int {
	if i := slices.Index(operationIDs, op); i >= 0 {
		return i
	}
	return len(operationIDs)
}

func readRows(doc *openapi3.T) []Row {
	var ops []*openapi3.Operation
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		ri, rj := OperationRank(ops[i].OperationID), OperationRank(ops[j].OperationID)
		if ri != rj {
			return ri < rj
		}
		return ops[i].OperationID < ops[j].OperationID
	})
	var out []Row
	for _, op := range ops {
		table := ""
		for _, t := range op.Tags {
			if name, ok := sectionTables[t]; ok {
				table = name
			}
		}
		var codes []int
		byCode := map[int]*openapi3.Response{}
		for code, ref := range op.Responses.Map() {
			n, err := strconv.Atoi(code)
			if err != nil || ref == nil || ref.Value == nil {
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
			base := Row{Table: table, Operation: op.OperationID, Status: code, Condition: cond}
			msgs, prefixes := extStrings(resp.Extensions["x-messages"]), extStrings(resp.Extensions["x-message-prefixes"])
			for _, m := range msgs {
				r := base
				r.Message = m
				out = append(out, r)
			}
			for _, p := range prefixes {
				r := base
				r.Message, r.Prefix = p, true
				out = append(out, r)
			}
			if len(msgs)+len(prefixes) == 0 {
				out = append(out, base)
			}
		}
	}
	return out
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

// Statuses lists the status codes documented for o, in order.
func (o Operation) Statuses() []int {
	out := make([]int, 0, len(o.Codes))
	for c := range o.Codes {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// DocumentedStatuses lists the documented status codes of every operation,
// by operationId.
func DocumentedStatuses() map[string][]int {
	ops, err := Operations()
	if err != nil {
		panic(fmt.Errorf("contract: %w", err))
	}
	out := map[string][]int{}
	for id, op := range ops {
		out[id] = op.Statuses()
	}
	return out
}

// StatusesSentence is the sentence a status the document does not give op
// breaks: the statuses openapi.yaml lists for op (from the document's
// sections 4 and 7), and no other.
func StatusesSentence(op string) string {
	codes := DocumentedStatuses()[op]
	list := make([]string, len(codes))
	for i, c := range codes {
		list[i] = strconv.Itoa(c)
	}
	return fmt.Sprintf("§4 and §7: %s answers %s, and the document gives it no other status", op, strings.Join(list, ", "))
}

// SentenceServerFault is the sentence CheckNoServerFault rests on.
const SentenceServerFault = "§7 Products: 500 all, \"System fault\" — \"Follows the server error message.\" " +
	"§7 Customer: 500 profile, \"Balance/coins cannot be loaded\" — " + MsgProfileUnloaded + " No other answer of the document is a 5xx."

// errServerFault is a 5xx answer the document does not give.
var errServerFault = errors.New("a server fault the document does not give")

// ServerFault is the error of a 5xx answer of op that a judge holds a
// server fault whatever its message: the answer to a request the judge
// made up to probe bad input, which wants a refusal, not a system fault.
func ServerFault(op string, status int) error {
	return fmt.Errorf("%w: %s answered %d", errServerFault, op, status)
}

// CheckNoServerFault checks the status and message of an answer of
// operation op for a server fault: a status below 500 passes (the other
// checks judge it); so does a 500 that a row of section 7 gives op, with
// the row's message, or with any message that is not empty where the row's
// message "follows the server error message". Any other 5xx is a server
// fault. A judge that sent a request the document refuses (a defect) still
// wants a refusal, not a system fault.
func CheckNoServerFault(op string, status int, message string) error {
	if status < 500 {
		return nil
	}
	for _, r := range RowsOf(op, status) {
		if r.Allows(message) || r.Message == "" && strings.TrimSpace(message) != "" {
			return nil
		}
	}
	return fmt.Errorf("%w: %s answered %d with the message %q (%s)", errServerFault, op, status, message, SentenceServerFault)
}
