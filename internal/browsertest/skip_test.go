package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSkipIsLogged: a skipped browser test appends its name and reason to
// $CONFORMANCE_SKIP_LOG, which make test counts.
func TestSkipIsLogged(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvSkipLog, log)
	for range 2 {
		t.Run("browser", func(t *testing.T) { skip(t, "no Chromium found") })
	}
	data, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "TestSkipIsLogged/browser: no Chromium found\nTestSkipIsLogged/browser#01: no Chromium found\n", string(data))
}
