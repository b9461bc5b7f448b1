package reference

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultDataset(t *testing.T) {
	t.Parallel()
	ds, err := DefaultDataset()
	require.NoError(t, err)
	count := map[string]int{}
	for _, p := range ds.Products {
		count[p.SubCategory]++
	}
	assert.GreaterOrEqual(t, count["prabayar"], 260)
	assert.InDelta(t, 60, count["paket-data"], 5)
	assert.InDelta(t, 20, count["paket-sms"], 5)
	assert.Equal(t, "Kemitraan", ds.OperatorTeam)
}

func TestLoadDataset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "ds.yaml")
	require.NoError(t, os.WriteFile(path, defaultDatasetYAML, 0o600))
	ds, err := LoadDataset(path)
	require.NoError(t, err)
	assert.Len(t, ds.Partners, 3)

	_, err = LoadDataset(filepath.Join(dir, "missing.yaml"))
	require.Error(t, err)

	require.NoError(t, os.WriteFile(path, []byte("partners: [{id: 1, price_plan: 9}]\n"), 0o600))
	_, err = LoadDataset(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
}

// TestParseDatasetErrors edits the embedded data set one line at a time and
// expects a clear error naming the problem.
func TestParseDatasetErrors(t *testing.T) {
	t.Parallel()
	base := string(defaultDatasetYAML)
	cases := []struct {
		name, old, new, want string
	}{
		{"duplicate token", "token: tok-nusantara-split", "token: tok-nusantara-funded", `duplicate token "tok-nusantara-funded"`},
		{"duplicate account id", "{id: 12, partner: 1", "{id: 11, partner: 1", "duplicate id 11"},
		{"duplicate product id", "{id: 1002, code: TSELR10", "{id: 1001, code: TSELR10", "duplicate id 1001"},
		{"duplicate secret key", "secret_key: sk-warung-41d2e8", "secret_key: sk-nusantara-7f3a9c", "duplicate secret_key"},
		{"duplicate phone", `phone: "081200000012"`, `phone: "081200000011"`, "duplicate phone"},
		{"duplicate email", "email: kemang@tokonusantara.example", "email: MENTENG@tokonusantara.example", "duplicate email"},
		{"unknown price plan", "price_plan: 2, main_account: 2", "price_plan: 7, main_account: 2", "unknown price_plan 7"},
		{"unknown main account", "price_plan: 2, main_account: 2", "price_plan: 2, main_account: 99", "unknown main_account 99"},
		{"main account of another partner", "price_plan: 2, main_account: 2", "price_plan: 2, main_account: 1", "must be a main account of the partner"},
		{"unknown account partner", "{id: 31, partner: 2", "{id: 31, partner: 8", "unknown partner 8"},
		{"unknown operator", "sub_category: prabayar, operator: 1, base_price: 6000", "sub_category: prabayar, operator: 42, base_price: 6000", "unknown operator 42"},
		{"unknown sub category", "description: \"Pulsa reguler Telkomsel Rp5.000\", sub_category: prabayar", "description: \"Pulsa reguler Telkomsel Rp5.000\", sub_category: voucher", `unknown sub_category "voucher"`},
		{"bad status", "base_price: 6000, status: active", "base_price: 6000, status: maybe", `status "maybe"`},
		{"unknown transaction product", "product: 1002, msisdn", "product: 77, msisdn", "unknown product 77"},
		{"method id 0", "{id: 1, code: QRIS", "{id: 0, code: QRIS", "0 is the internal balance/coin method"},
		{"duplicate prefix", `"0811", "0812"`, `"0811", "0811"`, `prefix "0811" already belongs`},
		{"unknown key", "operator_team: Kemitraan", "operator_team: Kemitraan\nsurprise: 1", "surprise"},
		{"bad time", `registered_at: "2026-04-01 08:05:00"`, `registered_at: "yesterday"`, "registered_at"},
		{"negative balance", "balance: 1500,", "balance: -1,", "must not be negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, base, tc.old, "test edit does not apply")
			_, err := parseDataset([]byte(strings.Replace(base, tc.old, tc.new, 1)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := parseDataset([]byte("{not yaml"))
	require.Error(t, err)
}
