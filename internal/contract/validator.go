package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Validator checks answers against openapi.yaml, for every judge alike: the
// status code is declared for the operation (or covered by its default
// response), the content type is application/json (CheckContentType), and
// the body matches the schema.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
	// routes are the operations of doc by operationId, for ValidateBody.
	routes map[string]*routers.Route
}

// NewValidator returns a validator for the server at baseURL.
func NewValidator(baseURL string) (*Validator, error) {
	doc, err := Spec()
	if err != nil {
		return nil, err
	}
	doc.Servers = openapi3.Servers{{URL: strings.TrimRight(baseURL, "/")}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing openapi.yaml for %s: %w", baseURL, err)
	}
	routes := map[string]*routers.Route{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			routes[op.OperationID] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return &Validator{doc: doc, router: router, routes: routes}, nil
}

// Doc is the validator's copy of openapi.yaml (operationIds as the
// document spells them); it must not be changed.
func (v *Validator) Doc() *openapi3.T { return v.doc }

// Validate returns the operation id of req (as openapi.yaml spells it) and
// the answer's departures from openapi.yaml, if any: an *AnswerError
// naming the field (a JSON pointer) and the rule of each, joined with a
// Content-Type other than application/json (ErrContentType). req's body
// must be readable (or nil).
func (v *Validator) Validate(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) (string, error) {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return "", fmt.Errorf("openapi.yaml has no operation %s %s: %w", req.Method, req.URL.Path, err)
	}
	ctErr := CheckContentType(header.Get("Content-Type"))
	return route.Operation.OperationID, errors.Join(ctErr, v.validateBody(ctx, route, params, req, status, body))
}

// ValidateBody judges the body of an answer with status to operation op
// (an operationId of openapi.yaml) as Validate does, for a judge that knows
// the operation and has no request at hand (the load tester): nil or an
// *AnswerError.
func (v *Validator) ValidateBody(ctx context.Context, op string, status int, body []byte) error {
	route, ok := v.routes[op]
	if !ok {
		return fmt.Errorf("openapi.yaml has no operation %s", op)
	}
	req := &http.Request{Method: route.Method, URL: &url.URL{Path: route.Path}, Header: http.Header{}}
	return v.validateBody(ctx, route, nil, req, status, body)
}

// validateBody judges body, the answer with status to req on route; the
// body is read as JSON whatever its Content-Type says (CheckContentType
// judges that).
func (v *Validator) validateBody(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, status int, body []byte) error {
	id := route.Operation.OperationID
	if err := notJSON(id, status, body); err != nil {
		// openapi3filter reads the first JSON value and ignores what follows.
		return err
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: opts,
		},
		Status:  status,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: opts,
	}
	err := openapi3filter.ValidateResponse(ctx, in)
	if err == nil {
		return nil
	}
	ae := &AnswerError{Operation: id, Status: status, Violations: violations(err)}
	root := responseSchema(route.Operation, status)
	opSection, _ := route.Operation.Extensions[extSection].(string)
	for i := range ae.Violations {
		if w := &ae.Violations[i]; w.Section == "" {
			w.Section = nonEmpty(sectionAt(root, splitPointer(w.Pointer)), opSection)
		}
	}
	return ae
}

// extSection names, in openapi.yaml, the section of the document that
// shows an operation or an object.
const extSection = "x-document-section"

// responseSchema is the schema of the JSON body of op's answer with
// status (or of its default answer), or nil.
func responseSchema(op *openapi3.Operation, status int) *openapi3.Schema {
	resp := op.Responses.Status(status)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil || resp.Value == nil {
		return nil
	}
	mt := resp.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Value
}

// sectionAt is the section of the document that shows the value at path
// in a body of schema s: that of the deepest object on the way that names
// one, "" when none does.
func sectionAt(s *openapi3.Schema, path []string) string {
	if s == nil {
		return ""
	}
	own, _ := s.Extensions[extSection].(string)
	var next []*openapi3.SchemaRef
	if len(path) > 0 {
		if p := s.Properties[path[0]]; p != nil {
			next = append(next, p)
		} else if _, err := strconv.Atoi(path[0]); err == nil && s.Items != nil {
			next = append(next, s.Items)
		}
	}
	for _, ref := range next {
		if sec := sectionAt(ref.Value, path[1:]); sec != "" {
			return sec
		}
	}
	// The branches of allOf, oneOf and anyOf describe the same value.
	for _, branches := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, ref := range branches {
			if sec := sectionAt(ref.Value, path); sec != "" {
				return sec
			}
		}
	}
	return own
}

// splitPointer is the path of a JSON pointer (RFC 6901).
func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	segs := strings.Split(p[1:], "/")
	unesc := strings.NewReplacer("~1", "/", "~0", "~")
	for i, seg := range segs {
		segs[i] = unesc.Replace(seg)
	}
	return segs
}
