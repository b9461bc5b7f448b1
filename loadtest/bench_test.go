package loadtest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
)

// benchAttack runs 2-second max-rate create attacks and reports the
// sustained rate the harness achieved (every response still checked).
func benchAttack(b *testing.B, p *profiles.Profile, opts ...loadtest.Option) {
	b.Helper()
	var sent int64
	var secs float64
	for range b.N {
		all := append([]loadtest.Option{
			loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(0, 2*time.Second)),
			loadtest.WithMaxWorkers(64), loadtest.WithMaxConnections(64),
			loadtest.WithPaymentMix(loadtest.Weights{loadtest.KindBalance: 1}),
		}, opts...)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		o, err := loadtest.New(p, all...).Run(ctx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		sent += o.Generator.Sent
		secs += o.Generator.Duration.Seconds()
	}
	b.ReportMetric(float64(sent)/secs, "req/s")
}

// BenchmarkHarnessAgainstReference measures the highest sustained payment
// creation rate against the in-process reference (reconciliation off: it
// is not part of the attack).
func BenchmarkHarnessAgainstReference(b *testing.B) {
	p := startReference(b)
	benchAttack(b, p, loadtest.WithReconcile(false))
}

// BenchmarkHarnessAgainstFixedHandler measures the harness alone: the
// server answers every request with one fixed create-payment body.
func BenchmarkHarnessAgainstFixedHandler(b *testing.B) {
	body := []byte(`{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,` +
		`"transaction_number":"INV/20261122/P1/00000001","status":"PROCESSING","payment_status":"PAID",` +
		`"amount":{"total":6300,"balance_used":6300,"coin_used":0,"coin_value_used":0,"gateway_payment":0},"partner_trx_id":"fixed"},` +
		`"payment_method":{"id":0,"code":"BALANCE","name":"Saldo & Koin","gateway":"SALDO","type":"COIN"},` +
		`"payment":{"is_required":false,"token":null,"redirect_url":null,"amount":0},` +
		`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah.","gateway_payment":"-"}}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	b.Cleanup(srv.Close)
	p := profiles.Reference(srv.URL)
	cat := &loadtest.Catalog{Products: []loadtest.Product{{ID: 1001, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300}}}
	// The fixed body echoes another partner_trx_id, so every response is
	// reported as a contract violation: the checks still run in full.
	benchAttack(b, p, loadtest.WithReconcile(false), loadtest.WithCatalog(cat))
}
