package record_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
)

// TestLedgerAmountFieldNames: the amount object of ledger.jsonl keeps the
// contract's field names (Amount is api.Amount).
func TestLedgerAmountFieldNames(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, record.WriteLedger(&b, []record.Payment{recordtest.Created("a", 1, "A", 100, 40)}))
	for _, k := range []string{`"total":120`, `"balance_used":100`, `"coin_used":40`, `"coin_value_used":20`, `"gateway_payment":0`} {
		assert.Contains(t, b.String(), k)
	}
	back, err := record.ReadLedger(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, []record.Payment{recordtest.Created("a", 1, "A", 100, 40)}, back)
}
