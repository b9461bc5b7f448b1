package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchPaymentBody is the load test's create-payment body with a unique
// partner_trx_id.
func benchPaymentBody(id int64) string {
	return `{"product_id":1002,"msisdn":"081234567890","payment_method_id":0,"use_balance":true,"use_coin":true,"partner_trx_id":"bench-http-` +
		strconv.FormatInt(id, 10) + `"}`
}

// servePayment sends one create-payment request to h through httptest, as
// every benchmark here does; any answer but 200 is an error.
func servePayment(ctx context.Context, h http.Handler, id int64) error {
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/client/v2/payment", strings.NewReader(benchPaymentBody(id)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", keyNusantara)
	req.Header.Set("Authorization", "Bearer tok-nusantara-load-1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	return nil
}

// staticPaymentHandler is the yardstick of issue 14: a net/http handler
// that reads the body and writes a fixed create-payment answer (a real one
// of the reference, so of the same size) as application/json.
func staticPaymentHandler(tb testing.TB) http.Handler {
	tb.Helper()
	store, _ := newTestStore(tb)
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(tb.Context(), http.MethodPost, "/client/v2/payment", strings.NewReader(benchPaymentBody(0)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", keyNusantara)
	req.Header.Set("Authorization", "Bearer tok-nusantara-load-1")
	NewServer(nil, store).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	answer := rec.Body.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
}

// BenchmarkCreatePaymentHTTP creates payments through the whole HTTP stack
// (routing, auth, body limit, the create-payment fast path, domain, JSON),
// one unique partner_trx_id each, on a funded load-test account.
// BenchmarkCreatePaymentHTTPGeneral is the same through the general path
// (strict body check, generated strict server), and BenchmarkStaticHandlerHTTP
// the static handler through the same harness: the in-process ratio of
// issue 14 is static ns/op over reference ns/op.
func BenchmarkCreatePaymentHTTP(b *testing.B) {
	store, _ := newTestStore(b)
	benchPayments(b, NewServer(slog.New(slog.DiscardHandler), store))
}

func BenchmarkCreatePaymentHTTPGeneral(b *testing.B) {
	store, _ := newTestStore(b)
	benchPayments(b, newServer(slog.New(slog.DiscardHandler), store, false))
}

func BenchmarkStaticHandlerHTTP(b *testing.B) {
	benchPayments(b, staticPaymentHandler(b))
}

func benchPayments(b *testing.B, h http.Handler) {
	var seq atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := servePayment(b.Context(), h, seq.Add(1)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCreatePaymentVsStatic alternates rounds of 2,000 requests (on
// 2 goroutines) to the static handler and to the reference in one run and
// reports each one's ns per request and static/reference, the in-process
// form of issue 14's ratio (goal: at least 0.8). Use -benchtime of at least
// 20x; each op is one round of each.
func BenchmarkCreatePaymentVsStatic(b *testing.B) {
	const perRound, workers = 2000, 2
	store, _ := newTestStore(b)
	ref := NewServer(slog.New(slog.DiscardHandler), store)
	static := staticPaymentHandler(b)
	var seq atomic.Int64
	round := func(h http.Handler) time.Duration {
		start := time.Now()
		done := make(chan struct{})
		for range workers {
			go func() {
				defer func() { done <- struct{}{} }()
				for range perRound / workers {
					if err := servePayment(b.Context(), h, seq.Add(1)); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		for range workers {
			<-done
		}
		return time.Since(start)
	}
	var staticTime, refTime time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which goes first
			staticTime += round(static)
			refTime += round(ref)
		} else {
			refTime += round(ref)
			staticTime += round(static)
		}
	}
	n := float64(b.N * perRound)
	b.ReportMetric(float64(staticTime.Nanoseconds())/n, "static-ns/req")
	b.ReportMetric(float64(refTime.Nanoseconds())/n, "reference-ns/req")
	b.ReportMetric(float64(staticTime)/float64(refTime), "static/reference")
}
