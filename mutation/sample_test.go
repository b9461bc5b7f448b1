package mutation

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ids(ms []Mutant) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID()
	}
	return out
}

func referenceMutants(t *testing.T) []Mutant {
	t.Helper()
	files, err := Sources("..")
	require.NoError(t, err)
	ms, err := Enumerate("..", files)
	require.NoError(t, err)
	require.Greater(t, len(ms), 500, "the reference has few mutants: did Sources find its files?")
	return ms
}

// TestOrderDependsOnTheSeedAndTheSourceOnly: the same seed gives the same
// order whatever order the mutants come in; another seed another order.
func TestOrderDependsOnTheSeedAndTheSourceOnly(t *testing.T) {
	t.Parallel()
	ms := referenceMutants(t)
	a := ids(Order(ms, 1))
	shuffled := slices.Clone(ms)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	assert.Equal(t, a, ids(Order(shuffled, 1)))
	b := ids(Order(ms, 2))
	assert.NotEqual(t, a[:150], b[:150])
	assert.ElementsMatch(t, a, b)
	// Not the enumeration's order: the sample spreads over the files.
	assert.NotEqual(t, ids(ms)[:150], a[:150])
	files := map[string]bool{}
	for _, m := range Order(ms, 1)[:150] {
		files[m.File] = true
	}
	assert.Greater(t, len(files), 10, "150 mutants of seed 1 come from few files")
}

// TestOrderKeepsOtherFilesInPlace: a file's mutants appearing or going
// leave the relative order of the others as it was, so a change of one
// file does not reshuffle the sample.
func TestOrderKeepsOtherFilesInPlace(t *testing.T) {
	t.Parallel()
	ms := referenceMutants(t)
	without := slices.DeleteFunc(slices.Clone(ms), func(m Mutant) bool { return m.File == "reference/payments.go" })
	require.Less(t, len(without), len(ms))
	full := slices.DeleteFunc(Order(ms, 1), func(m Mutant) bool { return m.File == "reference/payments.go" })
	assert.Equal(t, ids(full), ids(Order(without, 1)))
}
