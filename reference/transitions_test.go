package reference

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

func TestAdvance(t *testing.T) {
	t.Parallel()
	rules := transitionRules{settleAfter: 3 * time.Second, expireAfter: 15 * time.Minute}
	created := referencetest.T0
	paid := txState{Payment: PaymentPaid, Transaction: TransactionProcessing, UpdatedAt: created}
	unpaid := txState{Payment: PaymentUnpaid, Transaction: TransactionWaitingPayment, UpdatedAt: created}
	cases := []struct {
		name  string
		from  txState
		after time.Duration
		fails bool
		want  txState
	}{
		{"paid stays processing before settle", paid, 2999 * time.Millisecond, false, paid},
		{"paid settles to success", paid, 3 * time.Second, false, txState{PaymentPaid, TransactionSuccess, created.Add(3 * time.Second)}},
		{"updated_at is the transition time", paid, time.Hour, false, txState{PaymentPaid, TransactionSuccess, created.Add(3 * time.Second)}},
		{"fails on fulfilment", paid, 3 * time.Second, true, txState{PaymentPaid, TransactionFailed, created.Add(3 * time.Second)}},
		{"unpaid waits", unpaid, 15*time.Minute - time.Second, false, unpaid},
		{"unpaid expires", unpaid, 15 * time.Minute, false, txState{PaymentExpired, TransactionFailed, created.Add(15 * time.Minute)}},
		{"unpaid never settles", unpaid, 10 * time.Second, false, unpaid},
		{"final states stay", txState{PaymentExpired, TransactionFailed, created}, 48 * time.Hour, false, txState{PaymentExpired, TransactionFailed, created}},
		{"clock before creation", paid, -time.Hour, false, paid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, rules.advance(tc.from, created, created.Add(tc.after), tc.fails))
		})
	}
}

func TestSerialNumber(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "1002000000000042", serialNumber(1002, 42))
	assert.NotEqual(t, serialNumber(1002, 42), serialNumber(1002, 43))
}
