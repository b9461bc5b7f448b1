package loadtest

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/loadtest/record"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzRunID feeds arbitrary run ids and shards to ValidateRunID and newIDs
// (--run-id, --shard): a run id is accepted exactly when it is 1 to 20
// characters of [a-z0-9], and every id generated from an accepted run id and
// shard fits in partner_trx_id (≤ 50 characters) and parses back.
func FuzzRunID(f *testing.F) {
	f.Add("svxk1a2b3c", 0, 1, uint64(0))
	f.Add("abcdefghij0123456789", 9998, 9999, uint64(math.MaxUint64))
	f.Add("abcdefghij01234567890", 0, 1, uint64(1))
	f.Add("run-1", 0, 1, uint64(1))
	f.Add("RUN", 0, 1, uint64(1))
	f.Add("", 0, 1, uint64(1))
	f.Add("r\u00e9", 0, 1, uint64(1))
	f.Add("r", 5, 5, uint64(1))
	f.Fuzz(func(t *testing.T, run string, index, count int, seq uint64) {
		err := ValidateRunID(run)
		want := len(run) >= 1 && len(run) <= maxRunIDLen && strings.Trim(run, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
		require.Equal(t, want, err == nil, "ValidateRunID(%q) = %v", run, err)

		sh := record.Shard{Index: index, Count: count}
		ids, err := newIDs(run, sh)
		if err != nil {
			return
		}
		require.NoError(t, sh.Validate())
		for _, n := range []uint64{seq, 0, math.MaxUint64} {
			id := ids.ID(n)
			assert.LessOrEqual(t, len(id), maxTrxIDLen, "id %q", id)
			r, i, s, err := parseID(id)
			require.NoError(t, err, "id %q", id)
			assert.Equal(t, run, r)
			assert.Equal(t, index, i)
			assert.Equal(t, n, s)
		}
	})
}

// FuzzParseWeights feeds arbitrary strings to parseWeights (--mix and
// --ops): accepted weights name only allowed kinds, are non-negative, sum
// (without overflow) to more than 0, format back to themselves, and pick
// only names with a weight above 0.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"balance=2,coins=1,gateway=1", " gateway = 3 ,", "balance=0,coins=0", "balance=-1",
		"balance", "card=1", "balance=1,balance=0", "balance=9223372036854775807,coins=1"} {
		f.Add(s)
	}
	allowed := []string{record.KindBalance, record.KindCoins, record.KindGateway}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseWeights(s, allowed...)
		if err != nil {
			assert.Contains(t, err.Error(), "weights")
			return
		}
		sum := new(big.Int)
		for k, v := range w {
			assert.Contains(t, allowed, k)
			assert.GreaterOrEqual(t, v, 0, "weight of %s", k)
			sum.Add(sum, big.NewInt(int64(v)))
		}
		require.Positive(t, sum.Sign(), "weights %v sum to %s", w, sum)
		require.True(t, sum.IsInt64() && sum.Int64() == int64(w.total()), "weights %v sum to %s, total() says %d", w, sum, w.total())

		again, err := parseWeights(w.String(), allowed...)
		require.NoError(t, err)
		assert.Equal(t, w, again)
		for _, x := range []uint64{0, 1, 2, 3, 1 << 32, math.MaxUint64} {
			k := w.picker(kindOrder).pick(x)
			assert.Positive(t, w[k], "pick(%d) chose %q from %v", x, k, w)
		}
	})
}
