package loadtest

import (
	"testing"
)

// createBody is a created payment's body as the reference answers it.
const createBody = `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,` +
	`"transaction_number":"INV/20261122/P1/00000001","status":"PROCESSING","payment_status":"PAID",` +
	`"amount":{"total":6300,"balance_used":6300,"coin_used":0,"coin_value_used":0,"gateway_payment":0},"partner_trx_id":"r-0-123456"},` +
	`"payment_method":{"id":0,"code":"BALANCE","name":"Saldo & Koin","gateway":"SALDO","type":"COIN"},` +
	`"payment":{"is_required":false,"token":null,"redirect_url":null,"amount":0},` +
	`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah.","gateway_payment":"-"}}}`

// BenchmarkCheckResponse measures the checks of one created payment's
// answer: documented code, envelope, message, echoed id, amount arithmetic.
func BenchmarkCheckResponse(b *testing.B) {
	codes, err := DocumentedCodes()
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(createBody)
	b.ReportAllocs()
	for range b.N {
		ck, ce := checkResponse(codes, OpCreate, 200, body, "r-0-123456")
		if ck.violation != "" || ce == nil {
			b.Fatal(ck.violation)
		}
	}
}
