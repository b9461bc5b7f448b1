package record

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMergedShardsFellBehindFromTheFirstToTheLast: the span of a merge is
// from the earliest shard's fall to the latest; a shard that kept its
// schedule does not shorten it.
func TestMergedShardsFellBehindFromTheFirstToTheLast(t *testing.T) {
	t.Parallel()
	g := Generator{}
	for _, o := range []Generator{{}, {BehindFrom: 9 * time.Second, BehindUntil: 20 * time.Second},
		{BehindFrom: 4 * time.Second, BehindUntil: 12 * time.Second}, {}} {
		g.mergeBehind(o)
	}
	assert.Equal(t, 4*time.Second, g.BehindFrom)
	assert.Equal(t, 20*time.Second, g.BehindUntil)
}
