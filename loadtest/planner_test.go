package loadtest

import (
	"encoding/json"
	"testing"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPaymentsGoToTheProductsOperator: the destination number of a payment
// is a number of its product's operator.
func TestPaymentsGoToTheProductsOperator(t *testing.T) {
	t.Parallel()
	cat := &record.Catalog{Products: []record.Product{
		{ID: 1, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300, Operator: "XL"},
		{ID: 2, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300, Operator: "Tri"},
	}}
	ids, err := NewIDs("r", record.SingleShard)
	require.NoError(t, err)
	p, err := newPlanner(false, &client{}, ids, record.SingleShard, []Account{{Key: "a", Funded: true}}, cat,
		Weights{record.KindBalance: 1}, DefaultOpMix, 0)
	require.NoError(t, err)
	want := map[int64][]string{1: contract.OperatorPrefixes("XL"), 2: contract.OperatorPrefixes("Tri")}
	for n := range uint64(50) {
		j := createScenario{}.jobs(p, n, nil)[0]
		var body api.CreatePaymentRequest
		require.NoError(t, json.Unmarshal(j.call.body, &body))
		assert.Contains(t, want[body.ProductId], body.Msisdn[:4], "product %d to %s", body.ProductId, body.Msisdn)
	}
}
