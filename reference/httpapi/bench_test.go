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

	"github.com/partnercommerce/conformance/reference/referencetest"
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
	req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
	req.Header.Set("Authorization", "Bearer tok-nusantara-load-1")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return fmt.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	return nil
}

// staticPaymentHandler is the yardstick of the reference's speed
// (docs/performance.md: at least 0.8 of it): a net/http handler
// that reads the body and writes a fixed create-payment answer (a real one
// of the reference, so of the same size) as application/json.
func staticPaymentHandler(tb testing.TB) http.Handler {
	tb.Helper()
	store, _ := newTestStore(tb)
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(tb.Context(), http.MethodPost, "/client/v2/payment", strings.NewReader(benchPaymentBody(0)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
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
// the static handler through the same harness: the in-process ratio is
// static ns/op over reference ns/op.
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
// reports, for each, the wall time and the process CPU time per request,
// and static over reference for both: the in-process form of the speed
// ratio (goal: at least 0.8). The CPU ratio barely moves when other
// processes share the cores; the wall ratio does. Use -benchtime of at
// least 20x; each op is one round of each.
// Sub-benchmarks: the reference as served (fast path) and with every
// request on the general path (the strict server), which shows what the
// fast path saves.
func BenchmarkCreatePaymentVsStatic(b *testing.B) {
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast-path", false: "general-path"}[fast]
		b.Run(name, func(b *testing.B) {
			store, _ := newTestStore(b)
			benchVsStatic(b, newServer(slog.New(slog.DiscardHandler), store, fast))
		})
	}
}

func benchVsStatic(b *testing.B, ref http.Handler) {
	const perRound, workers = 2000, 2
	static := staticPaymentHandler(b)
	var seq atomic.Int64
	type cost struct{ wall, cpu time.Duration }
	var staticCost, refCost cost
	round := func(h http.Handler, into *cost) {
		start, cpu0 := time.Now(), referencetest.ProcessCPU()
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
		into.wall += time.Since(start)
		into.cpu += referencetest.ProcessCPU() - cpu0
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // alternate which goes first
			round(static, &staticCost)
			round(ref, &refCost)
		} else {
			round(ref, &refCost)
			round(static, &staticCost)
		}
	}
	n := float64(b.N * perRound)
	b.ReportMetric(float64(staticCost.wall.Nanoseconds())/n, "static-ns/req")
	b.ReportMetric(float64(refCost.wall.Nanoseconds())/n, "reference-ns/req")
	b.ReportMetric(float64(staticCost.wall)/float64(refCost.wall), "static/reference")
	if refCost.cpu > 0 {
		b.ReportMetric(float64(staticCost.cpu.Nanoseconds())/n, "static-cpu-ns/req")
		b.ReportMetric(float64(refCost.cpu.Nanoseconds())/n, "reference-cpu-ns/req")
		b.ReportMetric(float64(staticCost.cpu)/float64(refCost.cpu), "cpu-static/reference")
	}
}
