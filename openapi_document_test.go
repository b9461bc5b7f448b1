package conformance_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests below hold openapi.yaml to the API document's letter: bodies and
// requests the document allows validate, so that the contract is never
// stricter than the document.

// exchangeCheck validates one request and its response against openapi.yaml.
type exchangeCheck struct {
	method, target string
	status         int
	body           string
}

func validateExchange(tb testing.TB, c exchangeCheck) (reqErr, respErr error) {
	tb.Helper()
	doc := loadContract(tb)
	doc.Servers = openapi3.Servers{{URL: "http://127.0.0.1:8080"}}
	router, err := gorillamux.NewRouter(doc)
	require.NoError(tb, err)
	req := httptest.NewRequestWithContext(context.Background(), c.method, "http://127.0.0.1:8080"+c.target, nil)
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("X-SECRET-KEY", "k")
	route, params, err := router.FindRoute(req)
	require.NoError(tb, err)
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	rin := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	reqErr = openapi3filter.ValidateRequest(context.Background(), rin)
	if c.status == 0 {
		return reqErr, nil
	}
	header := http.Header{"Content-Type": {"application/json"}}
	respErr = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: rin, Status: c.status, Header: header,
		Body: io.NopCloser(bytes.NewReader([]byte(c.body))), Options: opts,
	})
	return reqErr, respErr
}

// TestContractAcceptsWhatTheDocumentAllows: each body or request is one the
// document allows and the earlier contract refused.
func TestContractAcceptsWhatTheDocumentAllows(t *testing.T) {
	t.Parallel()
	const product = `{"id":1,"code":"T5","name":"Pulsa 5rb","description":"","pricing":{"base_price":5000,"final_price":5500},"status":"active","operator":{"id":1,"name":"Telkomsel","logo":"https://x.example/t.png"}}`
	const customer = `{"id":7,"name":"Kasir","email":"kasir@toko.co.id","phone_number":"081234567890","level":1,"referral_code":"R","registered_at":"2026-01-05 09:00:00"}`
	const amount = `{"total":5500,"balance_used":5500,"coin_used":0,"coin_value_used":0,"gateway_payment":0}`
	cases := map[string]exchangeCheck{
		// §4.1 "Response body of a successful product list: not shown."
		"product list data null":   {"GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", 200, `{"status":true,"message":"OK","data":null}`},
		"product list data array":  {"GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", 200, `{"status":true,"message":"OK","data":[` + product + `]}`},
		"product list data string": {"GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", 200, `{"status":true,"message":"OK","data":"x"}`},
		// §4.2: the bodies of these two answers are not shown.
		"sync unknown sub category with data null":   {"GET", "/client/v2/product/sync?sub_category=x", 200, `{"status":false,"message":"Subkategori tidak ditemukan.","data":null,"pagination":null}`},
		"sync unknown sub category with data array":  {"GET", "/client/v2/product/sync?sub_category=x", 200, `{"status":false,"message":"Subkategori tidak ditemukan.","data":[],"pagination":{}}`},
		"sync inactive sub category with data array": {"GET", "/client/v2/product/sync?sub_category=paket-sms", 200, `{"status":true,"message":"Subkategori belum tersedia.","data":[]}`},
		// §4.1 and §8: the phone format applies to airtime and data only.
		"paket-sms list with a number outside the airtime format": {"GET", "/client/v2/product/list?phone_number=6281234567890&sub_category=paket-sms", 0, ""},
		// "string or null" / "object or null" fields may be absent.
		"product without promotion":                {"GET", "/client/v2/product/sync?sub_category=prabayar", 200, `{"status":true,"message":"OK","data":{"products":[` + product + `]},"pagination":{"total":1,"page":1,"perPage":10,"totalPages":1}}`},
		"profile without identity_number":          {"GET", "/client/v2/customer/profile", 200, `{"status":true,"message":"OK","data":{"customer":` + customer + `,"balance":{"available":0},"coin":{"note":"2 koin = 1 rupiah","available":0,"available_value":0}}}`},
		"payment without token or redirect":        {"POST", "/client/v2/payment", 200, `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,"transaction_number":"TRX/1","status":"PROCESSING","payment_status":"PAID","amount":` + amount + `,"partner_trx_id":"p1"},"payment_method":{"id":0,"code":"BALANCE","name":"Saldo","gateway":"SALDO","type":"COIN"},"payment":{"is_required":false,"amount":0},"developer_notes":{"coin_conversion":"2 koin = 1 rupiah","gateway_payment":"-"}}}`},
		"status record without product image URLs": {"GET", "/client/v2/payment/status?partner_trx_id=p1", 200, `{"status":true,"message":"OK","data":{"partner_trx_id":"p1","transaction_number":"TRX/1","product":{"id":1,"code":"T5","name":"Pulsa","description":"","image":{}},"operator":{"id":1,"name":"Telkomsel","logo":"https://x.example/t.png"},"payment_status":"PAID","transaction_status":"SUCCESS","amount":` + amount + `,"payment_method":{"gateway":"SALDO","type":"COIN"},"created_at":"2026-01-05 09:00:00","updated_at":"2026-01-05 09:00:00"}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reqErr, respErr := validateExchange(t, c)
			if c.status == 0 {
				assert.NoError(t, reqErr, "request")
			}
			assert.NoError(t, respErr, "response")
		})
	}
}

// TestContractStillRefusesWhatTheDocumentForbids: loosening the contract
// kept the document's own requirements.
func TestContractStillRefusesWhatTheDocumentForbids(t *testing.T) {
	t.Parallel()
	cases := map[string]exchangeCheck{
		"sync OK without products":                   {"GET", "/client/v2/product/sync?sub_category=prabayar", 200, `{"status":true,"message":"OK","data":null}`},
		"sync OK without pagination":                 {"GET", "/client/v2/product/sync?sub_category=prabayar", 200, `{"status":true,"message":"OK","data":{"products":[]}}`},
		"sync OK with a product without its logo":    {"GET", "/client/v2/product/sync?sub_category=prabayar", 200, `{"status":true,"message":"OK","data":{"products":[{"id":1,"code":"T5","name":"P","description":"","pricing":{"base_price":1,"final_price":2},"status":"active","operator":{"id":1,"name":"T"}}]},"pagination":{"total":1,"page":1,"perPage":10,"totalPages":1}}`},
		"sync unknown sub category, message missing": {"GET", "/client/v2/product/sync?sub_category=x", 200, `{"status":false,"data":null}`},
		"product list without status":                {"GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", 200, `{"message":"OK","data":null}`},
		"profile identity_number a number":           {"GET", "/client/v2/customer/profile", 200, `{"status":true,"message":"OK","data":{"customer":{"id":7,"name":"K","email":"k@toko.co.id","phone_number":"081234567890","identity_number":5,"level":1,"referral_code":"R","registered_at":"2026-01-05 09:00:00"},"balance":{"available":0},"coin":{"note":"n","available":0,"available_value":0}}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, respErr := validateExchange(t, c)
			assert.Error(t, respErr)
		})
	}
}

// TestContractProvisioningUnauthorizedListsTheCustomerRow: section 7's
// Customer 401 row holds three messages, provisioning included.
func TestContractProvisioningUnauthorizedListsTheCustomerRow(t *testing.T) {
	t.Parallel()
	resp := operations(loadContract(t))["provisionAccount"].Responses.Status(401).Value
	require.NotNil(t, resp)
	assert.ElementsMatch(t, []string{"Token wajib diisi.", "Token tidak valid."}, stringList(t, resp.Extensions, "x-messages"))
	assert.Equal(t, []string{"Akses ditolak"}, stringList(t, resp.Extensions, "x-message-prefixes"))
}

// TestContractNamesTheInternalMethod: §2.4 "The internal balance/coin
// method (id 0) is returned in a payment with code BALANCE, gateway SALDO,
// type COIN" is written where a payment's payment_method is described.
func TestContractNamesTheInternalMethod(t *testing.T) {
	t.Parallel()
	schemas := loadContract(t).Components.Schemas
	for _, where := range []struct{ schema, property string }{
		{"PaymentResult", "payment_method"},
		{"PaymentStatusRecord", "payment_method"},
	} {
		prop := schemas[where.schema].Value.Properties[where.property]
		require.NotNil(t, prop, where.schema)
		desc := prop.Value.Description
		for _, want := range []string{"id 0", "`BALANCE`", "`SALDO`", "`COIN`"} {
			assert.True(t, strings.Contains(desc, want), "%s.%s: the description %q lacks %s", where.schema, where.property, desc, want)
		}
	}
}
