package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/partnercommerce/conformance/api"
)

// encodedAnswer is what the generated strict server writes for r.
func encodedAnswer(tb testing.TB, r api.CreatePayment200JSONResponse) string {
	tb.Helper()
	b, err := json.Marshal(r)
	require.NoError(tb, err)
	return string(b) + "\n"
}

func TestAppendPaymentAnswer(t *testing.T) {
	t.Parallel()
	token, url := "tok<&>", "https://pay.example/?a=1&b=\u2028"
	var full api.CreatePayment200JSONResponse
	full.Status, full.Message = true, msgPaymentCreated
	full.Data.DeveloperNotes.CoinConversion, full.Data.DeveloperNotes.GatewayPayment = noteCoinConversion, noteGatewayPayment
	full.Data.Payment.Amount, full.Data.Payment.IsRequired, full.Data.Payment.Token, full.Data.Payment.RedirectUrl = 5000, true, &token, &url
	full.Data.PaymentMethod.Id, full.Data.PaymentMethod.Code, full.Data.PaymentMethod.Name = 0, "BALANCE", "Saldo & Koin"
	full.Data.Transaction.Id, full.Data.Transaction.PartnerTrxId = -9223372036854775808, "p\"1\\\x00\x1f\x7f\xff"
	full.Data.Transaction.Amount = api.Amount{Total: 11550, BalanceUsed: 11550, CoinUsed: 9223372036854775807}
	full.Data.Transaction.TransactionNumber = "INV/20261123/P1/00000002"
	tests := []struct {
		name string
		in   api.CreatePayment200JSONResponse
	}{
		{"zero", api.CreatePayment200JSONResponse{}},
		{"every field, HTML and control characters, invalid UTF-8, extreme integers", full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, encodedAnswer(t, tt.in), string(appendPaymentAnswer(nil, &tt.in)))
		})
	}
	assert.Contains(t, string(appendPaymentAnswer(nil, &full)), `"Saldo \u0026 Koin"`)
}

// TestPaymentAnswerMatchesJSON: on generated answers the hand-written
// encoder writes exactly what encoding/json writes.
func TestPaymentAnswerMatchesJSON(t *testing.T) {
	t.Parallel()
	str := rapid.OneOf(
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune{'a', '<', '>', '&', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0, 0x1f, 0x7f, 0x80, 'é', '\u2027', '\u2028', '\u2029', '\ufffd', '😀'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		var r api.CreatePayment200JSONResponse
		r.Status, r.Message = rapid.Bool().Draw(t, "status"), str.Draw(t, "message")
		d := &r.Data
		d.DeveloperNotes.CoinConversion, d.DeveloperNotes.GatewayPayment = str.Draw(t, "coin_conversion"), str.Draw(t, "gateway_payment")
		d.Payment.Amount, d.Payment.IsRequired = rapid.Int64().Draw(t, "amount"), rapid.Bool().Draw(t, "is_required")
		d.Payment.RedirectUrl, d.Payment.Token = rapid.Ptr(str, true).Draw(t, "redirect_url"), rapid.Ptr(str, true).Draw(t, "token")
		d.PaymentMethod.Code, d.PaymentMethod.Gateway, d.PaymentMethod.Name, d.PaymentMethod.Type = str.Draw(t, "code"), str.Draw(t, "gateway"), str.Draw(t, "name"), str.Draw(t, "type")
		d.PaymentMethod.Id = rapid.Int64().Draw(t, "method id")
		tr := &d.Transaction
		tr.Amount = api.Amount{
			Total: rapid.Int64().Draw(t, "total"), BalanceUsed: rapid.Int64().Draw(t, "balance_used"), CoinUsed: rapid.Int64().Draw(t, "coin_used"),
			CoinValueUsed: rapid.Int64().Draw(t, "coin_value_used"), GatewayPayment: rapid.Int64().Draw(t, "gateway_payment"),
		}
		tr.Id, tr.PartnerTrxId, tr.TransactionNumber = rapid.Int64().Draw(t, "id"), str.Draw(t, "partner_trx_id"), str.Draw(t, "transaction_number")
		tr.PaymentStatus, tr.Status = api.PaymentStatus(str.Draw(t, "payment_status")), api.TransactionStatus(str.Draw(t, "status"))
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(appendPaymentAnswer(nil, &r)); got != string(want)+"\n" {
			t.Fatalf("hand-written answer\n%q\nencoding/json\n%q", got, string(want)+"\n")
		}
	})
}
