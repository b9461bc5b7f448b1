package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const classified = `
- file: reference/payments.go
  func: (*Store).debit
  original: split.Gateway > 0
  mutated: split.Gateway >= 0
  class: equivalent
  why: the gateway part is never negative, so 0 > 0 and 0 >= 0 only differ where nothing follows.
- file: reference/catalog.go
  func: (*Store).Sync
  original: size = defaultPageSize
  mutated: size = 21
  occurrence: 2
  class: open-choice
  why: another default page size.
  sentence: '"pageSize" default: not shown.'
`

func TestClassificationsFindByKeyWhateverTheLine(t *testing.T) {
	t.Parallel()
	c, err := ParseClassifications([]byte(classified))
	require.NoError(t, err)
	require.Len(t, c.All(), 2)
	k := Key{File: "reference/payments.go", Func: "(*Store).debit", Original: "split.Gateway > 0", Mutated: "split.Gateway >= 0"}
	for _, occ := range []int{0, 1} { // the first occurrence, written or not
		k.Occurrence = occ
		e, ok := c.Find(k)
		require.True(t, ok, "occurrence %d", occ)
		assert.Equal(t, Equivalent, e.Class)
	}
	k.Occurrence = 2
	_, ok := c.Find(k)
	assert.False(t, ok, "the second occurrence is another mutant")
	e, ok := c.Find(Key{File: "reference/catalog.go", Func: "(*Store).Sync", Original: "size = defaultPageSize", Mutated: "size = 21", Occurrence: 2})
	require.True(t, ok)
	assert.Equal(t, OpenChoice, e.Class)
	_, ok = c.Find(Key{File: "reference/catalog.go", Func: "(*Store).Sync", Original: "size = defaultPageSize", Mutated: "size = 21"})
	assert.False(t, ok)
}

// TestAClassifiedSurvivorIsFoundAgainAfterLinesMove: the key of a mutant
// enumerated from a shifted source finds its classification.
func TestAClassifiedSurvivorIsFoundAgainAfterLinesMove(t *testing.T) {
	t.Parallel()
	src := fixture(t)
	ms, err := EnumerateFile("fixture/operators.go", src)
	require.NoError(t, err)
	var target Mutant
	for _, m := range ms {
		if m.Operator == ConditionalsBoundary {
			target = m
		}
	}
	require.NotEmpty(t, target.Original)
	file := "- id: " + target.ID() + "\n  file: " + target.File + "\n  func: '" + target.Func + "'\n  original: '" + target.Original +
		"'\n  mutated: '" + target.Mutated + "'\n  class: equivalent\n  why: a test.\n"
	c, err := ParseClassifications([]byte(file))
	require.NoError(t, err)
	shifted, err := EnumerateFile("fixture/operators.go", []byte(strings.Replace(string(src), "package fixture\n", "package fixture\n\n// Moved.\n\n", 1)))
	require.NoError(t, err)
	found := 0
	for _, m := range shifted {
		if _, ok := c.Find(m.Key); ok {
			found++
			assert.NotEqual(t, target.Line, m.Line)
		}
	}
	assert.Equal(t, 1, found)
}

func TestClassificationsRefuseIncompleteEntries(t *testing.T) {
	t.Parallel()
	key := "- file: reference/x.go\n  func: f\n  original: a < b\n  mutated: a <= b\n"
	for name, tc := range map[string]struct{ yaml, want string }{
		"unknown class":           {key + "  class: maybe\n  why: x\n", "class"},
		"no reason":               {key + "  class: equivalent\n", "why"},
		"open choice, no quote":   {key + "  class: open-choice\n  why: x\n", "sentence"},
		"load only, no load test": {key + "  class: load-only\n  why: x\n", "load"},
		"missed, no check":        {key + "  class: missed\n  why: x\n", "check"},
		"a repeated key":          {key + "  class: equivalent\n  why: x\n" + key + "  class: equivalent\n  why: y\n", "repeats"},
		"a wrong id":              {"- id: 00000000\n" + key[2:] + "  class: equivalent\n  why: x\n", "id"},
		"an unknown field":        {key + "  class: equivalent\n  why: x\n  because: y\n", "because"},
		"no original":             {"- file: reference/x.go\n  func: f\n  class: equivalent\n  why: x\n", "original"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseClassifications([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAMissingClassificationFileIsEmpty(t *testing.T) {
	t.Parallel()
	c, err := ReadClassifications(filepath.Join(t.TempDir(), "none.yaml"))
	require.NoError(t, err)
	assert.Empty(t, c.All())
	path := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(path, []byte("- file: [\n"), 0o600))
	_, err = ReadClassifications(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
}

// TestTheProjectsClassificationFileIsValid: mutation/survivors.yaml reads.
func TestTheProjectsClassificationFileIsValid(t *testing.T) {
	t.Parallel()
	_, err := ReadClassifications("survivors.yaml")
	require.NoError(t, err)
}
