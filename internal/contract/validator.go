package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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
	return &Validator{doc: doc, router: router}, nil
}

// Doc is the validator's copy of openapi.yaml (operationIds as the
// document spells them); it must not be changed.
func (v *Validator) Doc() *openapi3.T { return v.doc }

// Validate returns the operation id of req (as openapi.yaml spells it) and
// the answer's departures from openapi.yaml, if any. req's body must be
// readable (or nil).
func (v *Validator) Validate(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) (string, error) {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return "", fmt.Errorf("openapi.yaml has no operation %s %s: %w", req.Method, req.URL.Path, err)
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: opts,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: opts,
	}
	ctErr := CheckContentType(header.Get("Content-Type"))
	if ctErr != nil {
		// The body is still validated as the JSON it must be.
		in.Header = header.Clone()
		in.Header.Set("Content-Type", "application/json")
	}
	if !json.Valid(body) {
		// openapi3filter reads the first JSON value and ignores what follows.
		return route.Operation.OperationID, errors.Join(ctErr, errors.New("§1 \"Every response is JSON\": the body is not one JSON value"))
	}
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return route.Operation.OperationID, errors.Join(ctErr, fmt.Errorf("openapi.yaml %s, response %d: %s", route.Operation.OperationID, status, flatten(err)))
	}
	return route.Operation.OperationID, ctErr
}

// flatten renders a (multi) validation error on a few lines.
func flatten(err error) string {
	var me openapi3.MultiError
	if errors.As(err, &me) {
		parts := make([]string, 0, len(me))
		for _, e := range me {
			parts = append(parts, flatten(e))
		}
		return strings.Join(parts, "; ")
	}
	var re *openapi3filter.ResponseError
	if errors.As(err, &re) && re.Err != nil {
		if re.Reason != "" {
			return re.Reason + ": " + flatten(re.Err)
		}
		return flatten(re.Err)
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return fmt.Sprintf("at %s: %s", "/"+strings.Join(se.JSONPointer(), "/"), se.Reason)
	}
	return err.Error()
}
