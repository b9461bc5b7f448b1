package steps

import (
	"context"
	"net/http"
)

// Validator checks answers against openapi.yaml exactly as the suite does:
// the status is declared for the operation (or covered by its default
// response), the content type is JSON, and the body matches the schema.
// It lets other modes of the conformance tool (the generated mode) share
// the suite's one validator.
type Validator struct{ v *validator }

// NewValidator returns a validator for the server at baseURL.
func NewValidator(baseURL string) (*Validator, error) {
	v, err := newValidator(baseURL)
	if err != nil {
		return nil, err
	}
	return &Validator{v: v}, nil
}

// Validate returns the operation id of req and the answer's departures from
// openapi.yaml, if any. req's body must be readable (or nil).
func (v *Validator) Validate(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) (string, error) {
	return v.v.validate(ctx, req, status, header, body)
}
