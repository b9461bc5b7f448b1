package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// BenchmarkCreatePaymentHTTP creates payments through the whole HTTP stack
// (routing, auth, body limit, strict server, JSON), one unique
// partner_trx_id each, on a funded load-test account.
func BenchmarkCreatePaymentHTTP(b *testing.B) {
	store, _ := newTestStore(b)
	h := NewServer(slog.New(slog.DiscardHandler), store)
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := "bench-http-" + strconv.FormatInt(seq.Add(1), 10)
			body := `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"` + id + `"}`
			req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, "/client/v2/payment", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-SECRET-KEY", keyNusantara)
			req.Header.Set("Authorization", "Bearer tok-nusantara-load-1")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	})
}
