package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/jsonscan"
)

// A request body is read strictly, before the generated decoder sees it,
// because encoding/json is lenient where a lost or doubled payment hides:
// it ignores what follows the first value, lets a later duplicate key (or
// one that differs only in letter case) override an earlier one, matches
// keys case-insensitively, and replaces invalid UTF-8 and lone surrogate
// escapes with U+FFFD, so that two different ids become one. Each of these
// is refused with errMalformedRequest and changes nothing
// (docs/reference-choices.md, "Answers of the HTTP layer").

// bodyFields are the documented fields of each operation's JSON body, read
// from the generated request types' json tags.
var bodyFields = map[string][]string{
	opCreatePayment:    jsonFields(reflect.TypeFor[api.CreatePaymentJSONRequestBody]()),
	opProvisionAccount: jsonFields(reflect.TypeFor[api.ProvisionAccountJSONRequestBody]()),
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// errBodyRejected is a body that encoding/json would read leniently.
var errBodyRejected = errors.New("request body is not strict JSON")

// readStrictBody reads the body of a request for op and checks it; it
// returns the body to decode, or an error to answer.
func readStrictBody(r *http.Request, op string) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return nil, errMalformedRequest
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errBodyTooLarge
		}
		return nil, errMalformedRequest
	}
	if checkStrictJSON(body, bodyFields[op]) != nil {
		return nil, errMalformedRequest
	}
	return body, nil
}

// checkStrictJSON accepts a body that is empty or exactly one JSON value
// in valid UTF-8, with no lone surrogate escape, no duplicate key in any
// object, and no top-level key that matches one of fields only when letter
// case is ignored. Empty bodies and malformed JSON are left to the decoder,
// which answers them as before.
func checkStrictJSON(body []byte, fields []string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !utf8.Valid(body) || jsonscan.LoneSurrogate(body) {
		return errBodyRejected
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	type frame struct {
		object bool
		keys   map[string]bool
		lower  map[string]bool
		expect bool // the next string token of this object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // truncated or malformed: the decoder answers it
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.expect && tok != json.Delim('}') {
			key, _ := tok.(string)
			if top.keys[key] {
				return errBodyRejected // duplicate key
			}
			top.keys[key] = true
			if len(stack) == 1 {
				low := strings.ToLower(key)
				if top.lower[low] {
					return errBodyRejected // same key in another case
				}
				top.lower[low] = true
				for _, f := range fields {
					if key != f && strings.EqualFold(key, f) {
						return errBodyRejected // a documented field in the wrong case
					}
				}
			}
			top.expect = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, lower: map[string]bool{}, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			// One complete top-level value: nothing may follow it.
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return errBodyRejected
			}
			return nil
		}
		if top := stack[len(stack)-1]; top.object {
			top.expect = true
		}
	}
}
