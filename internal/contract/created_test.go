package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
)

// createdAnswer is a created payment's answer as the reference writes it.
const createdAnswer = `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"id":1,` +
	`"transaction_number":"INV/20261122/P1/00000001","status":"PROCESSING","payment_status":"PAID",` +
	`"amount":{"total":6300,"balance_used":1500,"coin_used":0,"coin_value_used":0,"gateway_payment":4800},"partner_trx_id":"a-1"},` +
	`"payment_method":{"id":1,"code":"QRIS","name":"QRIS","gateway":"XENDIT","type":"QRIS"},` +
	`"payment":{"is_required":true,"token":null,"redirect_url":"https://pay.example/1","amount":4800},` +
	`"developer_notes":{"coin_conversion":"2 koin = 1 rupiah.","gateway_payment":"QRIS"}}}`

func TestReadCreated(t *testing.T) {
	t.Parallel()
	p, env, err := ReadCreated([]byte(createdAnswer), "a-1")
	require.NoError(t, err)
	assert.Equal(t, Envelope{Status: true, Message: MsgCreated}, env)
	assert.Equal(t, &Payment{TransactionNumber: "INV/20261122/P1/00000001", PartnerTrxID: "a-1", TransactionStatus: "PROCESSING",
		PaymentStatus: "PAID", Amount: api.Amount{Total: 6300, BalanceUsed: 1500, GatewayPayment: 4800}, PaymentAmount: 4800,
		IsRequired: true, CoinNote: "2 koin = 1 rupiah.", GatewayNote: "QRIS"}, p)

	edit := func(old, repl string) string { return strings.Replace(createdAnswer, old, repl, 1) }
	cases := map[string]struct {
		body    string
		want    error
		payment bool // the payment is read despite the error
	}{
		"not JSON":               {createdAnswer[:40], ErrNotObject, false},
		"no status":              {edit(`"status":true,`, ``), errStatusMissing, false},
		"no data":                {`{"status":true,"message":"Pembayaran berhasil diproses."}`, ErrCreatedData, false},
		"data null":              {edit(`"data":{"transaction"`, `"data":null,"x":{"transaction"`), ErrCreatedData, false},
		"an amount as a string":  {edit(`"total":6300`, `"total":"6300"`), ErrCreatedData, false},
		"an amount missing":      {edit(`"coin_used":0,`, ``), ErrCreatedData, false},
		"an amount fractional":   {edit(`"coin_used":0,`, `"coin_used":0.5,`), ErrCreatedData, false},
		"an amount capitalised":  {edit(`"total"`, `"Total"`), ErrCreatedData, false},
		"status false":           {edit(`"status":true`, `"status":false`), ErrCreatedAnswer, true},
		"another id echoed":      {edit(`"partner_trx_id":"a-1"`, `"partner_trx_id":"a-2"`), ErrTransactionNamed, true},
		"number missing":         {edit(`"transaction_number":"INV/20261122/P1/00000001",`, ``), ErrTransactionNamed, true},
		"parts do not add up":    {edit(`"gateway_payment":4800`, `"gateway_payment":4000`), errAmountSum, true},
		"wallet over the total":  {edit(`"balance_used":1500`, `"balance_used":7000`), errWalletOverTotal, true},
		"number capitalised key": {edit(`"transaction_number"`, `"Transaction_Number"`), ErrTransactionNamed, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, _, err := ReadCreated([]byte(tc.body), "a-1")
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, tc.payment, p != nil, "the payment read")
		})
	}
}

// TestCreatedPlaces: each rule of a created payment names the members its
// breaking is about; another error names none.
func TestCreatedPlaces(t *testing.T) {
	t.Parallel()
	ok := Created{Status: true, Message: MsgCreated, TransactionNumber: "INV/1", PartnerTrxID: "a", Amount: api.Amount{Total: 100, BalanceUsed: 100}}
	for _, tc := range []struct {
		name  string
		edit  func(*Created)
		place string
	}{
		{"message", func(c *Created) { c.Message = "OK" }, "/message"},
		{"transaction number", func(c *Created) { c.TransactionNumber = "INV1" }, "/data/transaction/transaction_number"},
		{"coin rate", func(c *Created) { c.Amount = api.Amount{Total: 100, CoinUsed: 100, CoinValueUsed: 100} }, "/data/transaction/amount/coin_used"},
		{"over the total", func(c *Created) { c.Amount.BalanceUsed = 200 }, "/data/transaction/amount/balance_used"},
		{"parts short", func(c *Created) { c.Amount.BalanceUsed = 50 }, "/data/transaction/amount/gateway_payment"},
	} {
		c := ok
		tc.edit(&c)
		assert.Contains(t, CreatedPlaces(CheckCreated(c, "a", UnknownFee)), tc.place, tc.name)
	}
	assert.Empty(t, CreatedPlaces(errors.New("other")))
}
