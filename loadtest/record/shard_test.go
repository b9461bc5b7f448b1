package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseShard feeds arbitrary strings to ParseShard (--shard i/n): an
// accepted shard has 0 ≤ i < n ≤ 9999 and formats back to itself.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", " 3/4 ", "4/4", "-1/2", "0/0", "0/10000", "+1/2", "1/", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		require.NoError(t, sh.Validate())
		assert.GreaterOrEqual(t, sh.Count, 1)
		assert.LessOrEqual(t, sh.Count, maxShards)
		assert.GreaterOrEqual(t, sh.Index, 0)
		assert.Less(t, sh.Index, sh.Count)
		again, err := ParseShard(sh.String())
		require.NoError(t, err)
		assert.Equal(t, sh, again)
	})
}
