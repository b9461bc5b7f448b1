package httpapi

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
)

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
