package httpapi

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

// TestConcurrentDuplicateTrxID sends one partner_trx_id from 100 goroutines:
// exactly one payment is created and debited.
func TestConcurrentDuplicateTrxID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b0, c0 := wallet(t, e.store, 11)
	const n = 100
	replies := make([]reply, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			replies[i] = e.pay(funded, payBody(1002, "081234567890", 0, "same-trx", true, true))
		})
	}
	close(start)
	wg.Wait()
	count := map[int]int{}
	for _, r := range replies {
		count[r.Status]++
		if r.Status == http.StatusConflict {
			assert.Equal(t, "partner_trx_id sudah pernah digunakan. Gunakan ID transaksi mitra yang unik.", r.message())
		}
	}
	assert.Equal(t, map[int]int{200: 1, 409: n - 1}, count)
	b1, c1 := wallet(t, e.store, 11)
	assert.Equal(t, b0-11550, b1, "debited exactly once")
	assert.Equal(t, c0, c1)
}

// TestConcurrentPaymentsOneAccount draws 500 concurrent payments on one
// account that cannot pay for all of them: the wallet ends exact, never
// negative.
func TestConcurrentPaymentsOneAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 500
	b0, c0 := wallet(t, e.store, 12) // 1500 balance, 10.000.000 coins
	replies := make([]reply, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			replies[i] = e.pay(creds{referencetest.KeyNusantara, referencetest.TokSplit}, payBody(1002, "081234567890", 0, fmt.Sprintf("many-%d", i), true, true))
		})
	}
	close(start)
	wg.Wait()
	var ok, refused int
	var balanceUsed, coinsUsed int64
	for _, r := range replies {
		switch r.Status {
		case http.StatusOK:
			ok++
			balanceUsed += r.num("data", "transaction", "amount", "balance_used")
			coinsUsed += r.num("data", "transaction", "amount", "coin_used")
			assert.Equal(t, int64(11550), r.num("data", "transaction", "amount", "balance_used")+r.num("data", "transaction", "amount", "coin_value_used"))
		case http.StatusUnprocessableEntity:
			refused++
			assert.Equal(t, "Saldo dan koin tidak mencukupi.", r.message())
		default:
			t.Errorf("unexpected %d %s", r.Status, r.Raw)
		}
	}
	want := int((b0 + c0/2) / 11550) // 433 payments fit
	assert.Equal(t, want, ok)
	assert.Equal(t, n-want, refused)
	b1, c1 := wallet(t, e.store, 12)
	assert.Equal(t, b0-balanceUsed, b1)
	assert.Equal(t, c0-coinsUsed, c1)
	assert.GreaterOrEqual(t, b1, int64(0))
	assert.GreaterOrEqual(t, c1, int64(0))
	assert.Equal(t, b0, balanceUsed, "the balance went first and is spent")

	// Every created transaction is readable, numbered uniquely.
	numbers := map[string]bool{}
	for _, r := range replies {
		if r.Status == http.StatusOK {
			num := r.str("data", "transaction", "transaction_number")
			require.False(t, numbers[num], "duplicate number %s", num)
			numbers[num] = true
		}
	}
}
