package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
		req.Header.Set("X-SECRET-KEY", keyNusantara)
		req.Header.Set("Authorization", "Bearer "+tokFunded)
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
