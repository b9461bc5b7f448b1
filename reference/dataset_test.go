package reference

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
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
			_, err := ParseDataset([]byte(strings.Replace(base, tc.old, tc.new, 1)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := ParseDataset([]byte("{not yaml"))
	require.Error(t, err)
}

// TestDatasetMatchesProfile checks that every credential and fixture of
// profiles/reference.yaml exists in the embedded data set with the
// described property, through the HTTP API.
func TestDatasetMatchesProfile(t *testing.T) {
	t.Parallel()
	p := profiles.Reference("")
	require.NotNil(t, p)
	e := newEnv(t)
	partner := func(key, token string) creds { return creds{key, token} }

	// Main token: sync works.
	r := e.do("GET", "/client/v2/product/sync?sub_category=prabayar", partner(p.SecretKey, p.MainToken), "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	assert.Equal(t, "OK", r.message())

	// Funded customer holds at least the minimums.
	require.NotNil(t, p.FundedCustomer)
	r = e.do("GET", "/client/v2/customer/profile", partner(p.SecretKey, p.FundedCustomer.Token), "")
	require.Equal(t, http.StatusOK, r.Status)
	assert.GreaterOrEqual(t, r.num("data", "balance", "available"), p.FundedCustomer.MinBalance)
	assert.GreaterOrEqual(t, r.num("data", "coin", "available"), p.FundedCustomer.MinCoins)

	// Split customer: balance below some active product, coins cover the rest.
	require.NotNil(t, p.SplitCustomer)
	r = e.do("GET", "/client/v2/customer/profile", partner(p.SecretKey, p.SplitCustomer.Token), "")
	require.Equal(t, http.StatusOK, r.Status)
	balance, coinValue := r.num("data", "balance", "available"), r.num("data", "coin", "available_value")
	list := e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", partner(p.SecretKey, p.SplitCustomer.Token), "")
	require.Equal(t, http.StatusOK, list.Status)
	cheapest := int64(1 << 62)
	for _, x := range list.get("data", "products").([]any) {
		cheapest = min(cheapest, int64(x.(map[string]any)["pricing"].(map[string]any)["final_price"].(float64)))
	}
	assert.Less(t, balance, cheapest, "balance is below the cheapest product")
	assert.Positive(t, balance)
	assert.GreaterOrEqual(t, balance+coinValue, cheapest)
	pay := e.pay(partner(p.SecretKey, p.SplitCustomer.Token), payBody(1002, "081234567890", 0, "profile-split", true, true))
	require.Equal(t, http.StatusOK, pay.Status, "%s", pay.Raw)
	assert.Positive(t, pay.num("data", "transaction", "amount", "balance_used"))
	assert.Positive(t, pay.num("data", "transaction", "amount", "coin_used"))

	// Load customers are funded.
	require.Len(t, p.LoadCustomers, 4)
	for _, c := range p.LoadCustomers {
		r = e.do("GET", "/client/v2/customer/profile", partner(p.SecretKey, c.Token), "")
		require.Equal(t, http.StatusOK, r.Status, c.Token)
		assert.GreaterOrEqual(t, r.num("data", "balance", "available"), int64(1_000_000_000_000))
		assert.GreaterOrEqual(t, r.num("data", "coin", "available"), int64(2_000_000_000_000))
	}

	// Second partner: its main token works with its key, not with ours.
	require.NotNil(t, p.SecondPartner)
	r = e.do("GET", "/client/v2/product/sync?sub_category=prabayar", partner(p.SecondPartner.SecretKey, p.SecondPartner.MainToken), "")
	assert.Equal(t, http.StatusOK, r.Status)
	r = e.do("GET", "/client/v2/customer/profile", partner(p.SecretKey, p.SecondPartner.MainToken), "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)

	// Inactive price plan.
	require.NotNil(t, p.InactivePricePlan)
	r = e.do("GET", "/client/v2/product/list?phone_number=081234567890&sub_category=prabayar", partner(p.InactivePricePlan.SecretKey, p.InactivePricePlan.MainToken), "")
	assert.Equal(t, http.StatusBadRequest, r.Status)
	assert.Equal(t, "Price plan API mitra belum dikonfigurasi, hubungi tim "+p.OperatorTeam+" untuk informasi lebih lanjut.", r.message())

	// Inactive sub category.
	r = e.do("GET", "/client/v2/product/sync?sub_category="+p.InactiveSubCategory, partner(p.SecretKey, p.MainToken), "")
	assert.Equal(t, "Subkategori belum tersedia.", r.message())

	// Fixtures.
	r = e.do("GET", "/client/v2/customer/profile", partner(p.SecretKey, p.Fixtures.BrokenProfileToken), "")
	assert.Equal(t, http.StatusInternalServerError, r.Status)
	r = e.pay(partner(p.SecretKey, p.FundedCustomer.Token), payBody(int(p.Fixtures.UnprocessableProductID), "081234567890", 0, "profile-422", true, true))
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	u := p.Fixtures.UnformedPayment
	require.NotNil(t, u)
	for _, q := range []string{"partner_trx_id=" + u.PartnerTrxID, "transaction_number=" + u.TransactionNumber} {
		r = e.do("GET", "/client/v2/payment/status?"+q, partner(p.SecretKey, p.FundedCustomer.Token), "")
		assert.Equal(t, http.StatusNotFound, r.Status, q)
		assert.Equal(t, "Transaksi payment belum terbentuk.", r.message(), q)
	}
}
