package loadtest

import (
	"bytes"
	"encoding/json"
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
	body := payment{productID: 1001, msisdn: "081234567890", partnerTrxID: "r-0-123456", useBalance: true}
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

// FuzzPaymentMarshal: a payment's body is byte for byte what json.Marshal
// writes for the generated request type, escaped strings included.
func FuzzPaymentMarshal(f *testing.F) {
	f.Add("081234567890", "r-0-123456", int64(0), int64(1001), true, false)
	f.Add("0812<>&", "r-\"0\\-1", int64(-3), int64(0), false, true)
	f.Add("08\u2028", "é\x01\x7f", int64(9_223_372_036_854_775_807), int64(-9_223_372_036_854_775_808), true, true)
	f.Fuzz(func(t *testing.T, msisdn, id string, method, product int64, balance, coin bool) {
		p := payment{msisdn: msisdn, partnerTrxID: id, methodID: method, productID: product, useBalance: balance, useCoin: coin}
		got, err := p.marshal()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(p.request())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("marshal wrote %s, json.Marshal %s", got, want)
		}
	})
}
