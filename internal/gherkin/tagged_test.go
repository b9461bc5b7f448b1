package gherkin

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/contract"
)

// TestReadingTagsNameReadings: a @reading:<id> tag names a registered
// reading; every reading is applied by a scenario; an advisory (@reading)
// scenario names the readings it rests on.
func TestReadingTagsNameReadings(t *testing.T) {
	t.Parallel()
	scenarios, err := ReadTaggedScenarios(features.FS)
	require.NoError(t, err)
	require.NotEmpty(t, scenarios)
	tagged := map[string]bool{}
	for _, sc := range scenarios {
		var ids []string
		for _, tag := range sc.Tags {
			if id, ok := strings.CutPrefix(tag, ReadingTagPrefix); ok {
				_, known := contract.LookupReading(id)
				assert.True(t, known, "%s: %s: the tag @%s names no reading of internal/contract/readings.go", sc.Feature, sc.Name, tag)
				tagged[id] = true
				ids = append(ids, id)
			}
		}
		if slices.Contains(sc.Tags, AdvisoryTag) {
			assert.NotEmpty(t, ids, "%s: %s: an advisory @reading scenario names its readings with @reading:<id>", sc.Feature, sc.Name)
		}
	}
	for _, r := range contract.Readings() {
		assert.True(t, tagged[r.ID], "no scenario applies the reading %s: tag the scenarios that do with @reading:%s", r.ID, r.ID)
	}
}
