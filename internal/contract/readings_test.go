package contract

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadingsRegistry: every reading has an id, a sentence and a text, and
// its id is unique.
func TestReadingsRegistry(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, suiteReadings)
	require.NotEmpty(t, generatedReadings)
	require.NotEmpty(t, loadReadings)
	seen := map[string]bool{}
	for _, r := range slices.Concat(Readings(), GeneratedReadings(), LoadReadings()) {
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)*$`, r.ID)
		assert.False(t, seen[r.ID], "reading %s registered twice", r.ID)
		seen[r.ID] = true
		assert.Contains(t, r.Sentence, "§", "reading %s: the sentence names its section", r.ID)
		assert.NotEmpty(t, r.Text, "reading %s", r.ID)
	}
}

func TestLookupReading(t *testing.T) {
	t.Parallel()
	r, ok := LookupReading("generated-coins-cover-remainder")
	assert.True(t, ok)
	assert.Equal(t, "generated-coins-cover-remainder", r.ID)
	_, ok = LookupReading("no-such-reading")
	assert.False(t, ok)
	assert.Panics(t, func() { MustReading("no-such-reading") })
	assert.Equal(t, Warning{Reading: r.ID, Sentence: r.Sentence, Detail: "d"}, r.Warn("d"))
}
