package profiles

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReferenceProfileUnlocksEveryCapability(t *testing.T) {
	p := Reference("http://127.0.0.1:9999/")
	require.NoError(t, p.Validate())
	assert.Equal(t, "http://127.0.0.1:9999", p.BaseURL)
	for _, c := range Capabilities() {
		assert.Empty(t, p.Missing(c), "capability %s", c)
	}
	assert.Len(t, p.Available(), len(Capabilities()))
}

func TestExampleProfileDocumentsEveryKey(t *testing.T) {
	p, err := Load("example.yaml")
	require.NoError(t, err)
	require.NoError(t, p.Validate())
	assert.Len(t, p.Available(), len(Capabilities()), "example.yaml should show every optional key")
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, yaml, wantErr string
	}{
		{"unknown key", "base_url: http://x\nsecret_key: s\nmain_token: t\nsecretkey: typo\n", "secretkey"},
		{"wrong type", "base_url: http://x\nfixtures:\n  unprocessable_product_id: abc\n", "line 3"},
		{"not yaml", "base_url: [", "profile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestValidateNamesTheMissingKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		p       Profile
		wantErr string
	}{
		{"no base url", Profile{SecretKey: "s", MainToken: "t"}, "base_url"},
		{"not http", Profile{BaseURL: "ftp://x", SecretKey: "s", MainToken: "t"}, "base_url"},
		{"no secret", Profile{BaseURL: "http://x", MainToken: "t"}, "secret_key"},
		{"no main token", Profile{BaseURL: "http://x", SecretKey: "s"}, "main_token"},
		{"load customer without token", Profile{BaseURL: "http://x", SecretKey: "s", MainToken: "t",
			LoadCustomers: []Customer{{Token: "a"}, {}}}, "load_customers[1].token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.p.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestMissingNamesKeys(t *testing.T) {
	t.Parallel()
	p := Profile{BaseURL: "http://x", SecretKey: "s", MainToken: "t"}
	assert.Equal(t, []string{"funded_customer.token"}, p.Missing(CapFunded))
	assert.Equal(t, []string{"inactive_price_plan.secret_key", "inactive_price_plan.main_token", "operator_team"},
		p.Missing(CapPricePlan))
	assert.Equal(t, []string{"fixtures.unprocessable_product_id", "funded_customer.token"}, p.Missing(CapUnprocessable))
	assert.Empty(t, p.Available())
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("does-not-exist.yaml")
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
