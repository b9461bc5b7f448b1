package loadtest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/partnercommerce/conformance/profiles"
)

// benchAttack runs 2-second max-rate create attacks and reports the
// sustained rate the harness achieved (every response still checked).
func benchAttack(b *testing.B, p *profiles.Profile, opts ...loadtest.Option) {
	b.Helper()
	var sent int64
	var secs float64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range b.N {
		all := append([]loadtest.Option{
			loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(0, 2*time.Second)),
			loadtest.WithMaxWorkers(64), loadtest.WithMaxConnections(64),
			loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}),
		}, opts...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		o, err := newTester(p, all...).Run(ctx, b.TempDir())
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		sent += o.Generator.Sent
		secs += o.Meta.Load.Duration.Seconds()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(sent)/secs, "req/s")
	// Per request, server and generator together (one process): the
	// generator's share is what changes when it does.
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(sent), "allocs/req")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(sent), "B/req")
}

// BenchmarkHarnessAgainstReference measures the highest sustained payment
// creation rate against the in-process reference (reconciliation off: it
// is not part of the attack).
func BenchmarkHarnessAgainstReference(b *testing.B) {
	p := startReference(b)
	benchAttack(b, p, loadtest.WithReconcile(false))
}

// BenchmarkHarnessAgainstFixedHandler measures the harness alone: the
// server answers every request with one fixed create-payment body in which
// the request's partner_trx_id is spliced, so that every check passes and
// runs in full.
func BenchmarkHarnessAgainstFixedHandler(b *testing.B) {
	srv := httptest.NewServer(fixedCreateHandler())
	b.Cleanup(srv.Close)
	p := profiles.Reference(srv.URL)
	cat := &record.Catalog{Products: []record.Product{{ID: 1001, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300}}}
	benchAttack(b, p, loadtest.WithReconcile(false), loadtest.WithCatalog(cat))
}

// fixedCreateHandler answers every request with one fixed create-payment
// body that echoes the request's partner_trx_id.
func fixedCreateHandler() http.Handler {
	head := []byte(`{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,` +
		`"transaction_number":"INV/20261122/P1/00000001","status":"PROCESSING","payment_status":"PAID",` +
		`"amount":{"total":6300,"balance_used":6300,"coin_used":0,"coin_value_used":0,"gateway_payment":0},"partner_trx_id":"`)
	tail := []byte(`"},"payment_method":{"id":0,"code":"BALANCE","name":"Saldo & Koin","gateway":"SALDO","type":"COIN"},` +
		`"payment":{"is_required":false,"token":null,"redirect_url":null,"amount":0},` +
		`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah.","gateway_payment":"-"}}}`)
	key := []byte(`"partner_trx_id":"`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		id := []byte(nil)
		if i := bytes.Index(in, key); i >= 0 {
			id = in[i+len(key):]
			if j := bytes.IndexByte(id, '"'); j >= 0 {
				id = id[:j]
			}
		}
		out := make([]byte, 0, len(head)+len(id)+len(tail))
		out = append(append(append(out, head...), id...), tail...)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}
