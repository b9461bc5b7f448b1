package steps

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

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
	scenarios, err := readTaggedScenarios(features.FS)
	require.NoError(t, err)
	require.NotEmpty(t, scenarios)
	tagged := map[string]bool{}
	for _, sc := range scenarios {
		var ids []string
		for _, tag := range sc.Tags {
			if id, ok := strings.CutPrefix(tag, readingTagPrefix); ok {
				_, known := contract.LookupReading(id)
				assert.True(t, known, "%s: %s: the tag @%s names no reading of internal/contract/readings.go", sc.Feature, sc.Name, tag)
				tagged[id] = true
				ids = append(ids, id)
			}
		}
		if slices.Contains(sc.Tags, advisoryTag) {
			assert.NotEmpty(t, ids, "%s: %s: an advisory @reading scenario names its readings with @reading:<id>", sc.Feature, sc.Name)
		}
	}
	for _, r := range contract.Readings() {
		assert.True(t, tagged[r.ID], "no scenario applies the reading %s: tag the scenarios that do with @reading:%s", r.ID, r.ID)
	}
}

// TestReadingsDocListsTaggedScenarios: the rendering names each reading,
// its sentence and the scenarios tagged with it, advisory ones marked.
func TestReadingsDocListsTaggedScenarios(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"y.feature": {Data: []byte(`@reading:coin-value-rounds-down
Feature: Y
  Scenario: One
    Given a step

  Scenario: Two
    Given a step
`)}, "x.feature": {Data: []byte(`Feature: X
  @reading:coin-value-rounds-down
  Scenario: Applies it
    Given a step

  @reading @reading:coin-value-rounds-down
  Scenario Outline: Rests on it (<n>)
    Given a step
    Examples:
      | n |
      | 1 |
      | 2 |

  Scenario: Does not
    Given a step
`)}}
	doc, err := ReadingsDoc(fsys)
	require.NoError(t, err)
	text := string(doc)
	r := contract.MustReading("coin-value-rounds-down")
	section := text[strings.Index(text, "## `"+r.ID+"`"):]
	section, _, _ = strings.Cut(section[4:], "\n## ")
	assert.Contains(t, section, markdownText(r.Sentence))
	assert.Contains(t, section, markdownText(r.Text))
	assert.Contains(t, section, "  - x.feature: *Applies it*\n")
	assert.Contains(t, section, "  - x.feature: *Rests on it (&lt;n&gt;)* (advisory)\n")
	assert.NotContains(t, section, "Does not")
	assert.Contains(t, section, "  - y.feature: every scenario\n")
	assert.NotContains(t, section, "*One*", "a feature-wide tag lists the feature once")
	assert.Equal(t, 1, strings.Count(section, "Rests on it"), "an outline is listed once")
	assert.Contains(t, text, "## `"+contract.Readings()[0].ID+"`")
}
