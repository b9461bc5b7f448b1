package contract

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
)

func TestOperationsComeFromTheSpec(t *testing.T) {
	t.Parallel()
	cases := []struct {
		id, method, path string
		codes            []int
		not              []int
	}{
		{OpListProducts, "GET", "/client/v2/product/list", []int{200, 400, 401}, []int{201}},
		{OpSyncProducts, "GET", "/client/v2/product/sync", []int{200, 400, 401, 403}, []int{201}},
		{OpGetCustomerProfile, "GET", "/client/v2/customer/profile", []int{200, 401, 500}, []int{409}},
		{OpProvisionAccount, "POST", "/client/v2/customer/provision_account", []int{200, 201, 400, 401}, []int{409}},
		{OpListPaymentMethods, "GET", "/client/v2/payment/methods", []int{200, 401}, []int{422}},
		{OpCreatePayment, "POST", "/client/v2/payment", []int{200, 400, 401, 409, 422}, []int{201, 500}},
		{OpGetPaymentStatus, "GET", "/client/v2/payment/status", []int{200, 400, 401, 404}, []int{409}},
	}
	ops, err := Operations()
	require.NoError(t, err)
	assert.Len(t, ops, len(cases))
	for _, tc := range cases {
		op := MustOperation(tc.id)
		assert.Equal(t, tc.method, op.Method, tc.id)
		assert.Equal(t, tc.path, op.Path, tc.id)
		for _, c := range tc.codes {
			assert.True(t, op.Documents(c), "%s documents %d", tc.id, c)
		}
		for _, c := range tc.not {
			assert.False(t, op.Documents(c), "%s does not document %d", tc.id, c)
		}
	}
	assert.Panics(t, func() { MustOperation("deletePayment") })
}

func TestCoinRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ coins, value int64 }{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {2_000_000_000_000, 1_000_000_000_000}} {
		assert.Equal(t, tc.value, CoinValue(tc.coins), "coins %d", tc.coins)
	}
	assert.Equal(t, int64(6300*2), CoinsFor(6300))
}

func TestCheckAmount(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		a    api.Amount
		want error
	}{
		{"balance only", api.Amount{Total: 6300, BalanceUsed: 6300}, nil},
		{"balance then coins", api.Amount{Total: 6300, BalanceUsed: 1500, CoinUsed: 9600, CoinValueUsed: 4800}, nil},
		{"gateway remainder", api.Amount{Total: 6300, BalanceUsed: 300, GatewayPayment: 6000}, nil},
		{"parts short of total", api.Amount{Total: 6300, BalanceUsed: 6000}, errAmountSum},
		{"coins at 1 a rupiah", api.Amount{Total: 6300, CoinUsed: 6300, CoinValueUsed: 6300}, errAmountCoinRate},
		{"negative part", api.Amount{Total: 0, BalanceUsed: -5, GatewayPayment: 5}, errAmountNegative},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, checkAmount(tc.a), tc.name)
	}
}

// TestReferenceDoesNotImportContract: the reference and the suite are
// independent oracles of the document; the reference keeps its own rules.
// The test doubles beside it (reference/variants) are no oracle: they are
// the reference with a legal difference, which they word in the document's
// words, the contract's.
func TestReferenceDoesNotImportContract(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "reference")
	doubles := filepath.Join(root, "variants")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && path == doubles {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			assert.NotEqual(t, "github.com/partnercommerce/conformance/internal/contract", p, path)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, n, "the reference's files were read")
}
