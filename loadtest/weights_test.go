package loadtest

import (
	"testing"

	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWeights(t *testing.T) {
	t.Parallel()
	w, err := parseWeights("balance=2, coins=0,gateway=1", record.KindBalance, record.KindCoins, record.KindGateway)
	require.NoError(t, err)
	assert.Equal(t, Weights{record.KindBalance: 2, record.KindCoins: 0, record.KindGateway: 1}, w)
	for _, bad := range []string{"", "balance=0", "cash=1", "balance=-1", "balance"} {
		_, err := parseWeights(bad, record.KindBalance, record.KindCoins, record.KindGateway)
		assert.Error(t, err, bad)
	}
}

// TestPickerChoosesByWeight: the precomputed picker makes the same choice
// as walking the weights in order (the choice a run's hit n gets must not
// depend on how it is computed).
func TestPickerChoosesByWeight(t *testing.T) {
	t.Parallel()
	walk := func(w Weights, order []string, x uint64) string {
		r := int(x % uint64(w.total()))
		for _, k := range order {
			if r < w[k] {
				return k
			}
			r -= w[k]
		}
		return ""
	}
	for _, w := range []Weights{DefaultPaymentMix, DefaultOpMix, {record.KindCoins: 1}, {record.KindBalance: 0, record.KindGateway: 7},
		{record.KindBalance: 3, record.OpSync: 2}} { // a name outside the order is never chosen
		for _, order := range [][]string{kindOrder, opOrder} {
			pk := w.picker(order)
			counts := map[string]int{}
			for n := range uint64(5000) {
				x := mix64(n)
				got := pk.pick(x)
				require.Equal(t, walk(w, order, x), got, "%v over %v, x=%d", w, order, x)
				counts[got]++
			}
			for _, k := range order {
				if w[k] == 0 {
					assert.Zero(t, counts[k], "%s has no weight in %v", k, w)
				}
			}
		}
	}
	assert.Empty(t, Weights{}.picker(kindOrder).pick(1))
}
