package record

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChunkedKeepsOrderAcrossChunks: values added past the first chunk's
// capacity and across several chunks come back all, in order.
func TestChunkedKeepsOrderAcrossChunks(t *testing.T) {
	t.Parallel()
	for _, first := range []int{0, 3, 2 * ChunkSize} {
		var c chunked[int]
		c.cur = make([]int, 0, first)
		n := 2*ChunkSize + 5
		for i := range n {
			c.add(&i)
		}
		got := c.all()
		require.Len(t, got, n, "first chunk %d", first)
		for i, v := range got {
			require.Equal(t, i, v, "first chunk %d", first)
		}
	}
}
