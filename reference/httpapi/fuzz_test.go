package httpapi

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// FuzzCreatePaymentRequest sends arbitrary bodies to POST /client/v2/payment
// through the whole handler: it never panics and always answers JSON with
// status and message, a 2xx or 4xx code, valid against openapi.yaml.
func FuzzCreatePaymentRequest(f *testing.F) {
	f.Add([]byte(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"partner_trx_id":"f-1"}`))
	f.Add([]byte(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":1,"use_coin":true,"partner_trx_id":"f-2","shift_code":null,"parts":{"a":[1,{"b":null}]},"promotion_id":3}`))
	f.Add([]byte(`{"product_id":1e400}`))
	f.Add([]byte(`{"payment_method_id":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	f.Add([]byte("{\"partner_trx_id\":\"\xff\xfe\"}"))

	store, _ := newTestStore(f)
	h := NewServer(slog.New(slog.DiscardHandler), store)
	spec := newSpecValidator(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/client/v2/payment", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
		req.Header.Set("Authorization", "Bearer "+referencetest.TokFunded)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if rec.Code < 200 || rec.Code >= 500 || (rec.Code >= 300 && rec.Code < 400) {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("content type %q", ct)
		}
		var out struct {
			Status  *bool   `json:"status"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Status == nil || out.Message == nil || *out.Message == "" {
			t.Fatalf("body without status and message: %s (%v)", rec.Body, err)
		}
		if err := spec.validate(req, rec.Code, rec.Header(), rec.Body.Bytes()); err != nil {
			t.Fatalf("response breaks openapi.yaml: %v\n%s", err, rec.Body)
		}
	})
}

// FuzzRequestLine sends arbitrary methods, request targets (paths with any
// escape, query strings) and one arbitrary header, with valid credentials,
// through the whole handler, as net/http's server would parse them: it
// never panics and answers JSON with status and message, a 2xx or 4xx code.
// (A request net/http itself refuses never reaches the handler; see
// docs/reference-choices.md.)
func FuzzRequestLine(f *testing.F) {
	f.Add("GET", "/client/v2/payment%2Fstatus", "X-Trace", "1")
	f.Add("GET", "/client/v2/payment/status?partner_trx_id=%ff%fe&transaction_number=", "Accept", "*/*")
	f.Add("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar&sub_category=paket-data", "X-SECRET-KEY", "sk-warung-41d2e8")
	f.Add("GET", "/client/v2/product/sync?sub_category=prabayar&page=-1&pageSize=1e3", "Authorization", "Bearer ")
	f.Add("OPTIONS", "*", "Origin", "http://127.0.0.1")
	f.Add("HEAD", "/client/v2/customer/profile", "Authorization", "Basic abc")
	f.Add("POST", "/client/v2/payment?x=%zz", "Content-Type", "text/plain")
	f.Add("POST", "/client/v2/customer/provision_account", "Content-Type", "application/json; charset=latin1")
	f.Add("GET", "/client/v2/../v2/payment/methods", "Content-Length", "99999999999")
	f.Add("DELETE", "//client/v2/payment", "Transfer-Encoding", "chunked")

	store, _ := newTestStore(f)
	h := NewServer(slog.New(slog.DiscardHandler), store)
	f.Fuzz(func(t *testing.T, method, target, name, value string) {
		raw := method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
			"X-SECRET-KEY: " + referencetest.KeyNusantara + "\r\nAuthorization: Bearer " + referencetest.TokFunded + "\r\n" +
			name + ": " + value + "\r\nContent-Length: 2\r\n\r\n{}"
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return // net/http's server answers this itself, before any handler
		}
		req = req.WithContext(t.Context())
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if rec.Code < 200 || rec.Code >= 500 || (rec.Code >= 300 && rec.Code < 400) {
			t.Fatalf("status %d for %q: %s", rec.Code, raw, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("content type %q for %q", ct, raw)
		}
		var out struct {
			Status  *bool   `json:"status"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Status == nil || out.Message == nil || *out.Message == "" {
			t.Fatalf("body without status and message for %q: %s (%v)", raw, rec.Body, err)
		}
	})
}

// FuzzPaymentBody: whatever create-payment body the fast path takes, the
// general path (checkStrictJSON, then the strict server's decoder) takes
// too and decodes to the same request.
func FuzzPaymentBody(f *testing.F) {
	f.Add(`{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"f-1"}`)
	f.Add(" {\"shift_code\" : \"S-1\" ,\"promotion_id\":-7,\"parts\":null,\"use_coin\":false,\"msisdn\":null}\r\n")
	f.Add(`{"product_id":01}`)
	f.Add(`{"product_id":1,"product_id":1}`)
	f.Add(`{"msisdn":"\u0030"}`)
	f.Fuzz(func(t *testing.T, body string) {
		fast, ok := fastPaymentBody(body)
		if !ok {
			return
		}
		general, gok := generalPaymentBody(t.Context(), body)
		if !gok {
			t.Fatalf("the fast path took %q, the general path refuses it", body)
		}
		if !reflect.DeepEqual(fast, general) {
			t.Fatalf("body %q: fast path %+v, general path %+v", body, fast, general)
		}
	})
}
