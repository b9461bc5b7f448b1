package gherkin_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

// TestReadingTagsNameReadings: a @reading:<id> tag names a registered
// reading; every reading is applied by a scenario; an advisory (@reading)
// scenario names the readings it rests on.
func TestReadingTagsNameReadings(t *testing.T) {
	t.Parallel()
	fts, err := gherkin.Load(features.FS)
	require.NoError(t, err)
	scenarios := fts.Scenarios()
	require.NotEmpty(t, scenarios)
	tagged := map[string]bool{}
	for _, sc := range scenarios {
		var ids []string
		for _, tag := range sc.Tags {
			if id, ok := strings.CutPrefix(tag, gherkin.ReadingTagPrefix); ok {
				_, known := contract.LookupReading(id)
				assert.True(t, known, "%s: %s: the tag @%s names no reading of internal/contract/readings.go", sc.Location(), sc.Name, tag)
				tagged[id] = true
				ids = append(ids, id)
			}
		}
		if slices.Contains(sc.Tags, gherkin.AdvisoryTag) {
			assert.NotEmpty(t, ids, "%s: %s: an advisory @reading scenario names its readings with @reading:<id>", sc.Location(), sc.Name)
		}
	}
	for _, r := range contract.Readings() {
		assert.True(t, tagged[r.ID], "no scenario applies the reading %s: tag the scenarios that do with @reading:%s", r.ID, r.ID)
	}
}
