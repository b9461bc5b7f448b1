package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
)

// hasEnvelope is the independent oracle of §1: body is one JSON object with
// the exact keys "status", a boolean, and "message", a string.
func hasEnvelope(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return false
	}
	status, message := bytes.TrimSpace(fields["status"]), bytes.TrimSpace(fields["message"])
	var b bool
	var s string
	return len(status) > 0 && len(message) > 0 && !bytes.Equal(status, []byte("null")) && !bytes.Equal(message, []byte("null")) &&
		json.Unmarshal(status, &b) == nil && json.Unmarshal(message, &s) == nil
}

// envelopeSeeds are bodies a target might answer: well formed, with extra
// fields, wrong types, missing keys, keys in the wrong case, trailing data,
// truncated, not JSON at all.
var envelopeSeeds = []string{
	`{"status":true,"message":"OK","data":{"products":[]}}`,
	`{"status":false,"message":"Token tidak valid."}`,
	`{"status":"true","message":"OK"}`,
	`{"status":true}`,
	`{"Status":true,"MESSAGE":"OK"}`,
	`{"status":true,"message":"OK"} {"status":false}`,
	`{"status":true,"message":null}`,
	`<html>502 Bad Gateway</html>`,
}

// FuzzEnvelope feeds arbitrary response bodies to scenario.envelope, the
// check behind every "comes back with status ... and the message ..." step:
// it never panics, a body without a boolean status and a string message is
// always a failure that cites §1, and an accepted body yields the values
// the body holds.
func FuzzEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	s := &scenario{}
	f.Fuzz(func(t *testing.T, body []byte) {
		ex := &exchange{Method: http.MethodGet, URL: "http://target.test/client/v2/customer/profile", Status: 200,
			RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: body}
		env, err := s.envelope(ex)
		if err != nil {
			var se *stepError
			require.True(t, errors.As(err, &se), "%T is not a failure report", err)
			assert.Contains(t, se.report, secEveryJSON)
			return
		}
		require.True(t, hasEnvelope(body), "envelope accepted a body without boolean status and string message: %q", body)
		var want struct {
			Status  bool   `json:"status"`
			Message string `json:"message"`
		}
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &fields))
		require.NoError(t, json.Unmarshal(fields["status"], &want.Status))
		require.NoError(t, json.Unmarshal(fields["message"], &want.Message))
		assert.Equal(t, want.Status, env.Status)
		assert.Equal(t, want.Message, env.Message)
	})
}

// validatedRequests are requests of a few operations, as the suite sends them.
var validatedRequests = []struct{ method, target, body string }{
	{http.MethodGet, "/client/v2/customer/profile", ""},
	{http.MethodGet, "/client/v2/product/sync?sub_category=prabayar&page=1&limit=10", ""},
	{http.MethodPost, "/client/v2/payment", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"f-1"}`},
	{http.MethodGet, "/client/v2/payment/status?partner_trx_id=f-1", ""},
}

// FuzzValidateResponse feeds arbitrary status codes, content types and
// bodies to the openapi.yaml response validation of a few operations: it
// never panics, names the operation, rejects every content type that is not
// application/json, and rejects every body without a boolean status and a
// string message.
func FuzzValidateResponse(f *testing.F) {
	f.Add(uint8(0), uint16(200), "application/json", []byte(`{"status":true,"message":"OK","data":{"id":1}}`))
	f.Add(uint8(1), uint16(200), "application/json; charset=utf-8", []byte(`{"status":true,"message":"OK","data":{"products":[]},"pagination":{}}`))
	f.Add(uint8(2), uint16(409), "application/json", []byte(`{"status":false,"message":"partner_trx_id sudah pernah digunakan."}`))
	f.Add(uint8(3), uint16(404), "application/json", []byte(`{"Status":false,"Message":"x"}`))
	f.Add(uint8(2), uint16(200), "text/plain", []byte(`{"status":true,"message":"OK"}`))
	f.Add(uint8(0), uint16(500), "application/json", []byte(`{"status":false,"message":"boom"} trailing`))
	f.Add(uint8(1), uint16(204), "", []byte(nil))
	f.Add(uint8(3), uint16(999), "application/problem+json", []byte(`{"status":false}`))

	v, err := contract.NewValidator("http://target.test")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, op uint8, code uint16, contentType string, body []byte) {
		r := validatedRequests[int(op)%len(validatedRequests)]
		status := int(code) % 600
		if status < 100 {
			status += 100
		}
		req := httptest.NewRequestWithContext(t.Context(), r.method, "http://target.test"+r.target, strings.NewReader(r.body))
		if r.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		header := http.Header{}
		header.Set("Content-Type", contentType)

		opID, err := v.Validate(t.Context(), req, status, header, body)
		require.NotEmpty(t, opID)
		if !strings.HasPrefix(strings.ToLower(contentType), "application/json") {
			require.Error(t, err, "content type %q accepted", contentType)
		}
		if !hasEnvelope(body) {
			require.Error(t, err, "%s %d accepted a body without boolean status and string message: %q", opID, status, body)
		}
		if err != nil {
			assert.NotEmpty(t, err.Error())
		}
	})
}
