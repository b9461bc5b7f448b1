package report

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
)

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
	fts, err := gherkin.Load(fsys)
	require.NoError(t, err)
	text := string(ReadingsDoc(fts))
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
