package loadtest

import (
	"testing"

	"github.com/partnercommerce/conformance/api"
)

// BenchmarkBuildRequests measures building a request through the generated
// api.New*Request builders (the load tester writes no path of its own): a
// payment creation (URL built once per client, body marshalled per hit)
// and a status look-up (URL and query built per hit).
func BenchmarkBuildRequests(b *testing.B) {
	cl := &client{base: "http://127.0.0.1:8080"}
	req, err := api.NewCreatePaymentRequestWithBody(cl.base, "application/json", nil)
	if err != nil {
		b.Fatal(err)
	}
	cl.createURL = req.URL.String()
	yes, zero := true, int64(0)
	body := api.CreatePaymentRequest{ProductId: 1001, Msisdn: "081234567890", PartnerTrxId: "r-0-123456",
		PaymentMethodId: &zero, UseBalance: &yes}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if c := cl.createPayment("Bearer t", body); c.err != nil {
				b.Fatal(c.err)
			}
		}
	})
	b.Run("status", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if c := cl.paymentStatus("Bearer t", "r-0-123456"); c.err != nil {
				b.Fatal(c.err)
			}
		}
	})
}
