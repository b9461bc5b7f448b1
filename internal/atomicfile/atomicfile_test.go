package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesTheFileWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.json")
	require.NoError(t, WriteBytes(path, []byte("first\n")))
	require.NoError(t, WriteBytes(path, []byte("second\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "second\n", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assertOnly(t, dir, "summary.json")
}

// TestAFailedWriteLeavesTheFileAsItWas: a write that fails half way, as
// an interrupted one would, leaves the earlier file and no temporary one.
func TestAFailedWriteLeavesTheFileAsItWas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cucumber.json")
	require.NoError(t, WriteBytes(path, []byte(`[{"uri":"a.feature"}]`)))
	boom := errors.New("interrupted")
	err := Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, `[{"uri":`)
		return boom
	})
	require.ErrorIs(t, err, boom)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"uri":"a.feature"}]`, string(data))
	assertOnly(t, dir, "cucumber.json")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
