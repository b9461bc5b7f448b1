package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCucumberShowsSkips: in cucumber.json a skipped scenario
// has only skipped steps and says why; one feature per file.
func TestCucumberShowsSkips(t *testing.T) {
	t.Parallel()
	res, dir, _ := reportRun(t)
	data, err := os.ReadFile(filepath.Join(dir, "cucumber.json"))
	require.NoError(t, err)
	var feats []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(data, &feats))
	uris := map[string]bool{}
	skipped, elements := 0, 0
	for _, f := range feats {
		assert.False(t, uris[f.URI], "one feature per file: %s", f.URI)
		uris[f.URI] = true
		for _, e := range f.Elements {
			elements++
			if e.Steps[0].Result.Status != "skipped" {
				continue
			}
			skipped++
			assert.Contains(t, e.Steps[0].Result.Error, "profile lacks", e.Name)
			for _, st := range e.Steps {
				assert.Equal(t, "skipped", st.Result.Status, e.Name)
			}
		}
	}
	assert.Equal(t, res.Skipped, skipped)
	assert.Len(t, res.Summary.Scenarios, elements)
}
