package contract

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bodies of answers for the validator's tests, each a correct answer but
// for the part a case changes.
const (
	testProduct = `{"id":1,"code":"T5","name":"Pulsa 5rb","description":"","pricing":{"base_price":5000,"final_price":5500},"status":"active","operator":{"id":1,"name":"Telkomsel"}}`
	testAmount  = `{"total":5500,"balance_used":5500,"coin_used":0,"coin_value_used":0,"gateway_payment":0}`
	testPaging  = `{"total":2,"page":1,"perPage":10,"totalPages":1}`
)

// validateAnswer validates one answer of the operation at target.
func validateAnswer(t *testing.T, method, target string, status int, body string) error {
	t.Helper()
	v, err := NewValidator("http://target.test")
	require.NoError(t, err)
	req := httptest.NewRequestWithContext(t.Context(), method, "http://target.test"+target, nil)
	_, err = v.Validate(t.Context(), req, status, http.Header{"Content-Type": {"application/json"}}, []byte(body))
	return err
}

// TestValidatorNamesTheFieldAndTheRule: every departure is reported at the
// JSON pointer of the offending value, with its rule, a reason and the
// section of the document, however deep the schema nests it (the product
// sync answer is a oneOf in an allOf).
func TestValidatorNamesTheFieldAndTheRule(t *testing.T) {
	t.Parallel()
	const sync, profile, pay = "/client/v2/product/sync?sub_category=prabayar", "/client/v2/customer/profile", "/client/v2/payment"
	customer := `{"id":"7","name":"K","email":"k@toko.co.id","phone_number":"081234567890","level":1,"referral_code":"R","registered_at":"2026-01-05 09:00:00"}`
	payment := func(trxNumber, payStatus string) string {
		return `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,"transaction_number":"` + trxNumber +
			`","status":"PROCESSING","payment_status":"` + payStatus + `","amount":` + testAmount + `,"partner_trx_id":"p1"},` +
			`"payment_method":{"id":0,"code":"BALANCE","name":"Saldo","gateway":"SALDO","type":"COIN"},"payment":{"is_required":false,"amount":0},` +
			`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah","gateway_payment":"-"}}}`
	}
	cases := []struct {
		name, method, target, body string
		want                       []Violation
	}{
		{"sync OK without operator logos", "GET", sync,
			`{"status":true,"message":"OK","data":{"products":[` + testProduct + `,` + testProduct + `]},"pagination":` + testPaging + `}`,
			[]Violation{
				{Pointer: "/data/products/0/operator/logo", Rule: RuleMissing, Reason: `missing required property "logo"`, Section: "2.1"},
				{Pointer: "/data/products/1/operator/logo", Rule: RuleMissing, Reason: `missing required property "logo"`, Section: "2.1"},
			}},
		{"sync OK without pagination", "GET", sync, `{"status":true,"message":"OK","data":{"products":[]}}`,
			[]Violation{{Pointer: "/pagination", Rule: RuleMissing, Reason: `missing required property "pagination"`, Section: "2.2"}}},
		{"sync without message", "GET", sync, `{"status":false,"data":null}`,
			[]Violation{{Pointer: "/message", Rule: RuleMissing, Reason: `missing required property "message"`, Section: "4.2"}}},
		{"sync OK with a product status not allowed", "GET", sync,
			`{"status":true,"message":"OK","data":{"products":[` + strings.Replace(strings.Replace(testProduct, `"active"`, `"deleted"`, 1), `"Telkomsel"}`, `"Telkomsel","logo":"l"}`, 1) + `]},"pagination":` + testPaging + `}`,
			[]Violation{{Pointer: "/data/products/0/status", Rule: RuleNotAllowed, Reason: `value not allowed: value must be one of "active", "inactive", found "deleted"`,
				Requires: `value must be one of "active", "inactive"`, Section: "2.1"}}},
		{"profile with a string customer id", "GET", profile,
			`{"status":true,"message":"OK","data":{"customer":` + customer + `,"balance":{"available":0},"coin":{"note":"n","available":0,"available_value":0}}}`,
			[]Violation{{Pointer: "/data/customer/id", Rule: RuleType, Reason: `wrong type: value must be an integer, found "7"`, Requires: "value must be an integer", Section: "2.3"}}},
		{"payment with a transaction number without a slash", "POST", pay, payment("TRX1", "PAID"),
			[]Violation{{Pointer: "/data/transaction/transaction_number", Rule: RulePattern,
				Reason: `value out of its pattern: value must match the pattern "/", found "TRX1"`, Requires: `value must match the pattern "/"`, Section: "2.5"}}},
		{"payment with an amount of the wrong type", "POST", pay, strings.Replace(payment("TRX/1", "PAID"), `"total":5500`, `"total":"5500"`, 1),
			[]Violation{{Pointer: "/data/transaction/amount/total", Rule: RuleType, Reason: `wrong type: value must be an integer, found "5500"`, Requires: "value must be an integer", Section: "2.7"}}},
		{"body not JSON", "GET", profile, `Token tidak valid.`,
			[]Violation{{Rule: RuleNotJSON, Reason: `not one JSON value ("Every response is JSON")`, Section: "1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := validateAnswer(t, tc.method, tc.target, 200, tc.body)
			var ae *AnswerError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, tc.want, ae.Violations)
			assert.NotRegexp(t, `at /?:\s*($|;)`, err.Error())
		})
	}
}

// TestValidatorAcceptsTheAnswersTheDocumentAllows: the oneOf of product
// sync lets each of its answers through.
func TestValidatorAcceptsTheAnswersTheDocumentAllows(t *testing.T) {
	t.Parallel()
	const sync = "/client/v2/product/sync?sub_category=prabayar"
	logo := strings.Replace(testProduct, `"Telkomsel"}`, `"Telkomsel","logo":"l"}`, 1)
	for _, body := range []string{
		`{"status":true,"message":"OK","data":{"products":[` + logo + `]},"pagination":` + testPaging + `}`,
		`{"status":false,"message":"Subkategori tidak ditemukan."}`,
		`{"status":true,"message":"Subkategori belum tersedia.","data":[],"pagination":"x"}`,
	} {
		assert.NoError(t, validateAnswer(t, "GET", sync, 200, body), body)
	}
}

// TestViolationsOfEveryConstruct: the walk reaches a reason through every
// construct a schema can nest, and none is left without one.
func TestViolationsOfEveryConstruct(t *testing.T) {
	t.Parallel()
	str := openapi3.NewStringSchema()
	closed := openapi3.NewObjectSchema().WithProperty("a", str)
	closed.AdditionalProperties = openapi3.AdditionalProperties{Has: new(false)}
	cases := []struct {
		name   string
		schema *openapi3.Schema
		value  any
		want   Violation
	}{
		{"not", &openapi3.Schema{Not: openapi3.NewSchemaRef("", &openapi3.Schema{Enum: []any{"OK"}})}, "OK",
			Violation{Rule: RuleNotAllowed, Reason: `value not allowed: value must not be "OK", found "OK"`, Requires: `value must not be "OK"`}},
		{"unexpected property", closed, map[string]any{"a": "x", "b": 1.0},
			Violation{Pointer: "/b", Rule: RuleUnexpected, Reason: `unexpected property "b"`}},
		{"allOf", openapi3.NewAllOfSchema(openapi3.NewObjectSchema().WithProperty("a", openapi3.NewIntegerSchema())), map[string]any{"a": "x"},
			Violation{Pointer: "/a", Rule: RuleType, Reason: `wrong type: value must be an integer, found "x"`, Requires: "value must be an integer"}},
		{"anyOf", openapi3.NewAnyOfSchema(openapi3.NewIntegerSchema(), openapi3.NewBoolSchema()), "x",
			Violation{Rule: RuleNotAllowed, Reason: `value not allowed: doesn't match any schema from "anyOf", found "x"`, Requires: `doesn't match any schema from "anyOf"`}},
		{"maxLength", openapi3.NewStringSchema().WithMaxLength(2), "abc",
			Violation{Rule: RuleBounds, Reason: `value out of bounds: maximum string length is 2, found "abc"`, Requires: "maximum string length is 2"}},
		{"pointer escapes", openapi3.NewObjectSchema().WithProperty("a/b~", openapi3.NewIntegerSchema()), map[string]any{"a/b~": "x"},
			Violation{Pointer: "/a~1b~0", Rule: RuleType, Reason: `wrong type: value must be an integer, found "x"`, Requires: "value must be an integer"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.schema.VisitJSON(tc.value, openapi3.MultiErrors())
			require.Error(t, err)
			got := violations(err)
			require.Len(t, got, 1, "%v", err)
			assert.Equal(t, tc.want, got[0])
			assert.NotEmpty(t, got[0].Reason)
		})
	}
}

// TestAnswerErrorFoldsTheSameViolation: the same rule broken at many items
// of an array reads once, with the count of the others.
func TestAnswerErrorFoldsTheSameViolation(t *testing.T) {
	t.Parallel()
	var vs []Violation
	for _, p := range []string{"/data/products/0/operator/logo", "/data/products/1/operator/logo", "/data/products/2/operator/logo"} {
		vs = append(vs, Violation{Pointer: p, Rule: RuleMissing, Reason: `missing required property "logo"`, Section: "2.1"})
	}
	err := error(&AnswerError{Operation: OpSyncProducts, Status: 200, Violations: vs})
	assert.Equal(t, `openapi.yaml syncProducts, response 200: at /data/products/0/operator/logo: missing required property "logo" (§2.1)`+
		` (the same at 2 more items, such as /data/products/1/operator/logo)`, err.Error())
	assert.Equal(t, "data.products[].operator.logo", vs[0].Field())
	assert.Equal(t, "syncProducts answered without `data.products[].operator.logo` (required by openapi.yaml, §2.1)", vs[0].Headline(OpSyncProducts))
	var ae *AnswerError
	assert.True(t, errors.As(errors.Join(ErrContentType, err), &ae))
	typed := Violation{Pointer: "/data/customer/id", Rule: RuleType, Reason: `wrong type: value must be an integer, found "7"`, Requires: "value must be an integer", Section: "2.3"}
	assert.Equal(t, "getCustomerProfile answered `data.customer.id` with a wrong type: value must be an integer (openapi.yaml, §2.3)",
		typed.Headline(OpGetCustomerProfile), "a headline holds no value, so that the answers that break a rule alike read alike")
}

// TestValidateBodyJudgesAsValidate: a judge without the request (the load
// tester) gets the same violations for the same answer, and a brief of the
// first that names its field and pointer.
func TestValidateBodyJudgesAsValidate(t *testing.T) {
	t.Parallel()
	v, err := NewValidator("http://target.test")
	require.NoError(t, err)
	body := []byte(`{"status":true,"message":"OK","data":{"products":[` + testProduct + `]},"pagination":` + testPaging + `}`)
	req := httptest.NewRequestWithContext(t.Context(), "GET", "http://target.test/client/v2/product/sync?sub_category=prabayar", nil)
	_, viaRequest := v.Validate(t.Context(), req, 200, http.Header{"Content-Type": {"application/json"}}, body)
	viaOperation := v.ValidateBody(t.Context(), OpSyncProducts, 200, body)
	var a, b *AnswerError
	require.ErrorAs(t, viaRequest, &a)
	require.ErrorAs(t, viaOperation, &b)
	assert.Equal(t, a, b)
	assert.Equal(t, "syncProducts answered without `data.products[].operator.logo` (required by openapi.yaml, §2.1), at /data/products/0/operator/logo", b.Brief())
	assert.NoError(t, v.ValidateBody(t.Context(), OpGetPaymentStatus, 400, []byte(`{"status":false,"message":"x"}`)))
	assert.Error(t, v.ValidateBody(t.Context(), "deletePayment", 200, body))
}
