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
