package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/oapi-codegen/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/api"
)

// generalPaymentBody reads a create-payment body as the general path does:
// checkStrictJSON, then the generated strict server's decoder
// (runtime.BindJSONBody). ok is false when the general path answers 400.
func generalPaymentBody(ctx context.Context, body string) (req api.CreatePaymentRequest, ok bool) {
	if checkStrictJSON([]byte(body), bodyFields[opCreatePayment]) != nil {
		return req, false
	}
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/client/v2/payment", strings.NewReader(body))
	return req, runtime.BindJSONBody(r, &req) == nil
}

// fastPaymentBody reads body with decodePaymentBody.
func fastPaymentBody(body string) (api.CreatePaymentRequest, bool) {
	var pb paymentBody
	ok := decodePaymentBody([]byte(body), &pb)
	return pb.req, ok
}

func TestDecodePaymentBody(t *testing.T) {
	t.Parallel()
	i64 := func(v int64) *int64 { return &v }
	yes, no := true, false
	shift := "S-1"
	tests := []struct {
		name string
		body string
		want *api.CreatePaymentRequest // nil: left to the general path
	}{
		{"load-test body", `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"p-1"}`,
			&api.CreatePaymentRequest{ProductId: 1002, Msisdn: "081234567890", PaymentMethodId: i64(0), UseBalance: &yes, UseCoin: &yes, PartnerTrxId: "p-1"}},
		{"spaces and every field", " {\n\t\"shift_code\" : \"S-1\" , \"promotion_id\":-7,\"parts\":null,\"use_coin\":false,\"msisdn\":\"\",\"product_id\":-0}\r\n",
			&api.CreatePaymentRequest{ShiftCode: &shift, PromotionId: i64(-7), UseCoin: &no}},
		{"nulls", `{"payment_method_id":null,"use_balance":null,"shift_code":null,"msisdn":null,"product_id":null}`, &api.CreatePaymentRequest{}},
		{"empty object", `{}`, &api.CreatePaymentRequest{}},
		{"largest integer taken", `{"product_id":9223372036854775807}`, &api.CreatePaymentRequest{ProductId: 9223372036854775807}},
		{"smallest integer taken", `{"promotion_id":-9223372036854775808}`, &api.CreatePaymentRequest{PromotionId: i64(-9223372036854775808)}},
		{"past int64", `{"product_id":9223372036854775808}`, nil},
		{"20 digits", `{"product_id":10000000000000000000}`, nil},
		{"fraction", `{"product_id":1.0}`, nil},
		{"exponent", `{"product_id":1e3}`, nil},
		{"leading zero", `{"product_id":01}`, nil},
		{"minus alone", `{"product_id":-}`, nil},
		{"string id", `{"product_id":"1002"}`, nil},
		{"escape in a value", `{"partner_trx_id":"a\u0041"}`, nil},
		{"escape in a key", `{"product\u005fid":1}`, nil},
		{"non-ASCII value", `{"msisdn":"é"}`, nil},
		{"control character", "{\"msisdn\":\"a\tb\"}", nil},
		{"duplicate key", `{"product_id":1,"product_id":2}`, nil},
		{"wrong case key", `{"Product_id":1}`, nil},
		{"unknown key", `{"note":"x"}`, nil},
		{"parts object", `{"parts":{}}`, nil},
		{"trailing comma", `{"product_id":1,}`, nil},
		{"trailing data", `{"product_id":1} {}`, nil},
		{"truncated", `{"product_id":1`, nil},
		{"vertical tab", "{\"product_id\":1}\v", nil},
		{"array", `[]`, nil},
		{"null", `null`, nil},
		{"empty", ``, nil},
		{"bool literal cut", `{"use_coin":tru}`, nil},
		{"bool then letters", `{"use_coin":truex}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := fastPaymentBody(tt.body)
			if tt.want == nil {
				assert.False(t, ok, "the fast path took %q", tt.body)
				return
			}
			require.True(t, ok, "the fast path left %q", tt.body)
			assert.Equal(t, *tt.want, got)
			general, gok := generalPaymentBody(t.Context(), tt.body)
			require.True(t, gok)
			assert.Equal(t, general, got)
		})
	}
}

// TestPaymentBodyMatchesGeneralPath: on generated bodies (valid, near-valid
// and broken), whatever the fast path takes the general path takes too and
// decodes to the same request.
func TestPaymentBodyMatchesGeneralPath(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		body := paymentBodyGen().Draw(t, "body")
		fast, ok := fastPaymentBody(body)
		if !ok {
			return
		}
		general, gok := generalPaymentBody(context.Background(), body)
		if !gok {
			t.Fatalf("the fast path took %q, the general path refuses it", body)
		}
		if !assert.Equal(t, general, fast, "body %q", body) {
			t.FailNow()
		}
	})
}

// TestPaymentBodyCommonTakesFastPath: every body in the common shape takes
// the fast path (else the equivalence above would hold for a path that
// takes nothing).
func TestPaymentBodyCommonTakesFastPath(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		body := commonPaymentBodyGen().Draw(t, "body")
		if _, ok := fastPaymentBody(body); !ok {
			t.Fatalf("the fast path left the common body %q", body)
		}
	})
}

// paymentKeys are the documented keys with the kind of value each takes.
var paymentKeys = []struct{ key, kind string }{
	{"product_id", "int"}, {"msisdn", "string"}, {"payment_method_id", "int"}, {"promotion_id", "int"},
	{"use_balance", "bool"}, {"use_coin", "bool"}, {"parts", "object"}, {"partner_trx_id", "string"}, {"shift_code", "string"},
}

func formatInt(v int64) string { return strconv.FormatInt(v, 10) }

// jsonSpace is JSON whitespace.
var jsonSpace = rapid.StringOfN(rapid.SampledFrom([]rune{' ', '\t', '\n', '\r'}), 0, 2, -1)

// commonPaymentBodyGen makes bodies of the shape the fast path takes:
// documented keys once each, in any order, values of their own kind.
func commonPaymentBodyGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		keys := rapid.Permutation(paymentKeys).Draw(t, "keys")
		keys = keys[:rapid.IntRange(0, len(keys)).Draw(t, "n")]
		var b strings.Builder
		b.WriteString(jsonSpace.Draw(t, "ws") + "{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(jsonSpace.Draw(t, "ws") + `"` + k.key + `"` + jsonSpace.Draw(t, "ws") + ":" + jsonSpace.Draw(t, "ws"))
			var v string
			switch k.kind {
			case "int":
				v = rapid.OneOf(
					rapid.Map(rapid.Int64Range(-999999999999999999, 999999999999999999), formatInt),
					rapid.Just("null"),
				).Draw(t, "int")
			case "string":
				v = rapid.OneOf(rapid.StringMatching(`"[ !#-\[\]-~]{0,24}"`), rapid.Just("null")).Draw(t, "string")
			case "bool":
				v = rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "bool")
			case "object":
				v = "null"
			}
			b.WriteString(v + jsonSpace.Draw(t, "ws"))
		}
		b.WriteString("}" + jsonSpace.Draw(t, "ws"))
		return b.String()
	})
}

// paymentBodyGen makes common bodies, bodies with odd members (other
// kinds of values, escapes, unknown, wrong-case and repeated keys), other
// top-level values, and any of these with a few bytes changed.
func paymentBodyGen() *rapid.Generator[string] {
	member := rapid.Custom(func(t *rapid.T) string {
		key := rapid.OneOf(
			rapid.SampledFrom([]string{"product_id", "msisdn", "payment_method_id", "promotion_id", "use_balance", "use_coin", "parts", "partner_trx_id", "shift_code"}),
			rapid.SampledFrom([]string{"Product_Id", "MSISDN", "use_Coin", "note", "product_id2", `product\u005fid`, "", "pärts", "\xff"}),
		).Draw(t, "key")
		value := rapid.OneOf(
			rapid.Map(rapid.Int64(), formatInt),
			rapid.SampledFrom([]string{"true", "false", "null", "0", "-0", "01", "1.0", "1e3", "-", "1000000000000000000", "99999999999999999999", `"1002"`, "tru", "nul"}),
			rapid.StringMatching(`"[ !#-\[\]-~]{0,12}"`),
			rapid.SampledFrom([]string{`"a\u0041"`, `"\ud800"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", "\"é\"", "\"a\tb\"", `"\""`, `"\\"`}),
			rapid.SampledFrom([]string{`{}`, `{"a":1}`, `{"a":1,"a":2}`, `{"A":1,"a":2}`, `[]`, `[1,{"b":null}]`, `{"x":[`}),
		).Draw(t, "value")
		return `"` + key + `":` + value
	})
	odd := rapid.Custom(func(t *rapid.T) string {
		members := rapid.SliceOfN(member, 0, 6).Draw(t, "members")
		sep := rapid.SampledFrom([]string{",", ", ", ",\n", ",,", " "}).Draw(t, "sep")
		return "{" + strings.Join(members, sep) + "}" + rapid.SampledFrom([]string{"", " ", "\n", "\v", "\u00a0", "{}", "x", "\x00", "]"}).Draw(t, "after")
	})
	other := rapid.SampledFrom([]string{``, ` `, `null`, `[]`, `1`, `"x"`, `true`, `{`, `}`, `{"product_id":1}{"product_id":2}`, "\ufeff{}"})
	whole := rapid.OneOf(commonPaymentBodyGen(), odd, other)
	return rapid.Custom(func(t *rapid.T) string {
		b := []byte(whole.Draw(t, "whole"))
		for range rapid.IntRange(0, 2).Draw(t, "edits") {
			pos := rapid.IntRange(0, len(b)).Draw(t, "pos")
			c := rapid.SampledFrom([]byte(`{}[]",:\ 0123456789.eE-+tfnul_az`+"\t\n\x00\x7f\x80\xff")).Draw(t, "byte")
			switch rapid.IntRange(0, 3).Draw(t, "edit") {
			case 0: // insert
				b = append(b[:pos], append([]byte{c}, b[pos:]...)...)
			case 1: // replace
				if pos < len(b) {
					b[pos] = c
				}
			case 2: // delete
				if pos < len(b) {
					b = append(b[:pos], b[pos+1:]...)
				}
			case 3: // cut
				b = b[:pos]
			}
		}
		return string(b)
	})
}
