package loadtest

import (
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReservedAccountsAreNeverSpent: the conformance profile's reserved
// accounts (funded_customer, ...) are not load customers.
func TestReservedAccountsAreNeverSpent(t *testing.T) {
	t.Parallel()
	p := profiles.Reference("http://127.0.0.1:1")
	require.NotNil(t, p.FundedCustomer)
	p.LoadCustomers = nil
	assert.Empty(t, partitionAccounts(p, record.SingleShard))
	p = profiles.Reference("http://127.0.0.1:1")
	for _, a := range partitionAccounts(p, record.SingleShard) {
		assert.True(t, strings.HasPrefix(a.Key, "load_customers["), a.Key)
	}
}

// TestBudgetReservesWhatTheAccountCanAfford: a payment reserves the highest
// price of a product the wallet can pay for, and its answer gives back what
// was not debited.
func TestBudgetReservesWhatTheAccountCanAfford(t *testing.T) {
	t.Parallel()
	byPrice := []record.Product{{ID: 1, BasePrice: 5000, FinalPrice: 6000}, {ID: 2, BasePrice: 10000, FinalPrice: 11000}}
	b := &budget{}
	b.balance.Store(12000)
	b.coins.Store(11000)
	for h := range uint64(20) {
		c := &budget{}
		c.balance.Store(12000)
		p, ok := c.reserve(record.KindBalance, byPrice, h)
		require.True(t, ok)
		assert.Equal(t, 12000-p.MaxPrice(), c.balance.Load())
	}
	p, ok := b.reserve(record.KindCoins, byPrice, 1) // 11,000 coins are Rp 5,500: only product 1 (Rp 6,000) is out of reach too
	assert.False(t, ok, "%+v", p)
	p, ok = b.reserve(record.KindBalance, byPrice, 1)
	require.True(t, ok)
	pay := &record.Payment{MaxBalance: p.MaxPrice(), Outcome: record.OutcomeCreated, Amount: &record.Amount{Total: p.FinalPrice, BalanceUsed: p.FinalPrice}}
	b.settle(pay)
	assert.Equal(t, 12000-p.FinalPrice, b.balance.Load(), "what was debited stays spent")
	b.balance.Store(20000)
	before := b.balance.Load()
	_, ok = b.reserve(record.KindBalance, byPrice, 0)
	require.True(t, ok)
	b.settle(&record.Payment{MaxBalance: before - b.balance.Load(), Outcome: record.OutcomeRefused})
	assert.Equal(t, before, b.balance.Load(), "a refusal gives everything back")
	_, ok = b.reserve(record.KindBalance, byPrice, 0)
	require.True(t, ok)
	b.settle(&record.Payment{MaxBalance: 6000, Outcome: record.OutcomeUncertain})
	assert.Equal(t, before-6000, b.balance.Load(), "an unanswered payment keeps its reservation")
}
