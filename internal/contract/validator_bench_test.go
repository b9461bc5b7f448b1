package contract

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The validator's cost per answer, which bounds how many answers the load
// tester can judge against the schema (loadtest/checks.go, schemaEvery).

func BenchmarkValidateSyncPage(b *testing.B) {
	logo := strings.Replace(testProduct, `"Telkomsel"}`, `"Telkomsel","logo":"l"}`, 1)
	body := []byte(`{"status":true,"message":"OK","data":{"products":[` + strings.Repeat(logo+",", 19) + logo + `]},"pagination":` + testPaging + `}`)
	benchmarkValidate(b, "/client/v2/product/sync?sub_category=prabayar", body)
}

func BenchmarkValidateProfile(b *testing.B) {
	body := []byte(`{"status":true,"message":"OK","data":{"customer":{"id":7,"name":"K","email":"k@toko.co.id","phone_number":"081234567890",` +
		`"level":1,"referral_code":"R","registered_at":"2026-01-05 09:00:00"},"balance":{"available":0},"coin":{"note":"n","available":0,"available_value":0}}}`)
	benchmarkValidate(b, "/client/v2/customer/profile", body)
}

func benchmarkValidate(b *testing.B, target string, body []byte) {
	v, err := NewValidator("http://target.test")
	if err != nil {
		b.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequestWithContext(b.Context(), "GET", "http://target.test"+target, nil)
		if _, err := v.Validate(b.Context(), req, 200, h, body); err != nil {
			b.Fatal(err)
		}
	}
}
