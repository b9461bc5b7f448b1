package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// SentenceEnvelope is the sentence every answer's body rests on.
const SentenceEnvelope = "§1: \"Every response is JSON and carries `status` (boolean) and `message` (string).\""

// Envelope is the status and message of a response.
type Envelope struct {
	Status  bool
	Message string
}

// The ways a body can fail to be an envelope.
var (
	ErrNotObject      = errors.New("the body is not one JSON object")
	errStatusMissing  = errors.New("status is missing or not a boolean")
	errMessageMissing = errors.New("message is missing or not a string")
)

// Decode reads body as an envelope. It is strict where encoding/json is
// lenient: the body must be exactly one JSON object (nothing after it), the
// keys must be spelled `status` and `message` exactly (not "Status"), and
// neither may be null. It also returns the object's fields, so that a
// caller can read the rest (such as `data`) without parsing the body again.
func Decode(body []byte) (Envelope, map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := Unmarshal(body, &fields); err != nil || fields == nil {
		if err == nil {
			err = errors.New("null")
		}
		return Envelope{}, nil, fmt.Errorf("%w: %w", ErrNotObject, err)
	}
	var status *bool
	if json.Unmarshal(fields["status"], &status) != nil || status == nil {
		return Envelope{}, fields, errStatusMissing
	}
	var message *string
	if json.Unmarshal(fields["message"], &message) != nil || message == nil {
		return Envelope{}, fields, errMessageMissing
	}
	return Envelope{Status: *status, Message: *message}, fields, nil
}

// Unmarshal reads one JSON value from body into v, keeping numbers exact
// (json.Number in untyped places). Anything after the value is an error,
// not ignored.
func Unmarshal(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Int64 reads a JSON number that Unmarshal decoded in an untyped place
// (json.Number) as an int64; ok is false for anything else.
func Int64(v any) (n int64, ok bool) {
	num, isNumber := v.(json.Number)
	if !isNumber {
		return 0, false
	}
	n, err := num.Int64()
	return n, err == nil
}

// notJSON is the departure of a body that is not one JSON value (§1), as
// every judge names it, or nil.
func notJSON(op string, status int, body []byte) error {
	if json.Valid(body) {
		return nil
	}
	v := Violation{Rule: RuleNotJSON, Reason: "not one JSON value (\"Every response is JSON\")", Section: "1"}
	return &AnswerError{Operation: op, Status: status, Violations: []Violation{v}}
}

// CheckEnvelope judges what every answer of op carries before any rule of
// its content (§1, §4): a body labelled application/json that is one JSON
// value (the departures a Validator names the same way: an *AnswerError,
// joined with ErrContentType) and an object with status and message. A
// judge that reads an answer's content without a Validator calls it first,
// so that a body in another format is that one cause, never a rule the
// body kept it from reading (a 409 "without section 7's message").
func CheckEnvelope(op string, status int, contentType string, body []byte) (Envelope, error) {
	if err := errors.Join(CheckContentType(contentType), notJSON(op, status, body)); err != nil {
		return Envelope{}, err
	}
	env, _, err := Decode(body)
	if err != nil {
		return env, fmt.Errorf("%w (%s)", err, SentenceEnvelope)
	}
	return env, nil
}
