package record

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteFileIsWholeOrNotAtAll: a report file whose writing stops half
// way, as a second Ctrl-C stops it, is left as it was, not cut short.
func TestWriteFileIsWholeOrNotAtAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, WriteFile(dir, "report.json", func(w io.Writer) error { return WriteJSON(w, map[string]int{"requests": 1}) }))
	stopped := errors.New("stopped")
	err := WriteFile(dir, "report.json", func(w io.Writer) error {
		_, _ = io.WriteString(w, `{"requests": `)
		return stopped
	})
	require.ErrorIs(t, err, stopped)
	assert.Contains(t, err.Error(), "report.json")
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"requests": 1}`, string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left")
}
