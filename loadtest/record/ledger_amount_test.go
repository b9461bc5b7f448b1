package record_test

import (
	"os"
	"path/filepath"
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
	run := recordtest.Ledger(t, []record.Payment{recordtest.Created("a", 1, "A", 100, 40)})
	dir := t.TempDir()
	require.NoError(t, record.WriteDir(dir, run))
	b, err := os.ReadFile(filepath.Join(dir, record.FileLedger))
	require.NoError(t, err)
	for _, k := range []string{`"total":120`, `"balance_used":100`, `"coin_used":40`, `"coin_value_used":20`, `"gateway_payment":0`} {
		assert.Contains(t, string(b), k)
	}
	assert.Equal(t, []record.Payment{recordtest.Created("a", 1, "A", 100, 40)}, recordtest.Payments(t, run))
}
