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

// TestMergeKeepsAStoppedReconciliation: a shard whose reconciliation the
// target stopped makes the merged run not reconciled, says which shard,
// and still has it judged (Gathered).
func TestMergeKeepsAStoppedReconciliation(t *testing.T) {
	t.Parallel()
	shard := func(i int, stopped string) *Run {
		return &Run{Meta: Meta{Settings: Settings{RunID: "r", Scenario: "create", Shard: Shard{Index: i, Count: 2}}, Reconciled: stopped == "", ReconcileStopped: stopped}}
	}
	m, err := Merge([]*Run{shard(0, ""), shard(1, "the target did not answer at reconciliation time")}, false)
	assert.NoError(t, err)
	assert.False(t, m.Meta.Reconciled)
	assert.Equal(t, "shard 1/2: the target did not answer at reconciliation time", m.Meta.ReconcileStopped)
	assert.True(t, m.Meta.Gathered())
	m, err = Merge([]*Run{shard(0, ""), shard(1, "")}, false)
	assert.NoError(t, err)
	assert.True(t, m.Meta.Reconciled && m.Meta.Gathered())
	assert.Empty(t, m.Meta.ReconcileStopped)
}
