package loadtest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseID splits an id made by IDs into its run, shard index and sequence.
func parseID(id string) (run string, shard int, seq uint64, err error) {
	parts := strings.Split(id, "-")
	if len(parts) != 3 {
		return "", 0, 0, errors.New("not a load-test id")
	}
	shard, err1 := strconv.Atoi(parts[1])
	seq, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, errors.New("not a load-test id")
	}
	return parts[0], shard, seq, nil
}

func TestIDsUniqueBoundedAndShardsDisjoint(t *testing.T) {
	t.Parallel()
	run := strings.Repeat("z", maxRunIDLen) // the longest run id
	seen := map[string]record.Shard{}
	for i := range 3 {
		sh := record.Shard{Index: i, Count: 3}
		g, err := newIDs(run, sh)
		require.NoError(t, err)
		for _, seq := range []uint64{0, 1, 9, 10, 11, 99, 100, 101, 1 << 40, ^uint64(0)} {
			id := g.ID(seq)
			assert.LessOrEqual(t, len(id), maxTrxIDLen, id)
			prev, dup := seen[id]
			assert.False(t, dup, "%s made by shard %s and %s", id, prev, sh)
			seen[id] = sh
			r, s, q, err := parseID(id)
			require.NoError(t, err)
			assert.Equal(t, run, r)
			assert.Equal(t, i, s)
			assert.Equal(t, seq, q)
		}
	}
	// The widest shard index also fits.
	g, err := newIDs(run, record.Shard{Index: 9998, Count: 9999})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(g.ID(^uint64(0))), maxTrxIDLen)
	// Fresh run ids are valid and differ.
	a, b := NewRunID(), NewRunID()
	require.NoError(t, ValidateRunID(a))
	assert.NotEqual(t, a, b)
}

func TestRunIDAndShardValidation(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "has-dash", "UPPER", strings.Repeat("a", maxRunIDLen+1), "sp ace"} {
		assert.Error(t, ValidateRunID(bad), bad)
	}
	cases := []struct {
		in   string
		want record.Shard
		ok   bool
	}{
		{"0/1", record.Shard{Index: 0, Count: 1}, true},
		{"3/4", record.Shard{Index: 3, Count: 4}, true},
		{" 1/2 ", record.Shard{Index: 1, Count: 2}, true},
		{"4/4", record.Shard{}, false},
		{"-1/4", record.Shard{}, false},
		{"0/0", record.Shard{}, false},
		{"1", record.Shard{}, false},
		{"a/b", record.Shard{}, false},
		{"0/10000", record.Shard{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := record.ParseShard(tc.in)
			if !tc.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestOperatorNumber(t *testing.T) {
	t.Parallel()
	for _, op := range contract.Operators() {
		for h := range uint64(200) {
			n := operatorNumber(strings.ToUpper(op.Names[0]), mix64(h))
			require.True(t, contract.ValidMsisdn(n), n)
			assert.Contains(t, op.Prefixes, n[:4], "%s got %s", op.Names[0], n)
			assert.Equal(t, fmt.Sprintf("%08d", (mix64(h)>>8)%100_000_000), n[4:], "the 8 digits chosen by h")
		}
	}
	assert.Contains(t, contract.Operators()[0].Prefixes, operatorNumber("Unknown Operator", 7)[:4])
	assert.Contains(t, contract.Operators()[1].Prefixes, operatorNumber("Indosat Ooredoo", 7)[:4])
}
