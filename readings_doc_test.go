package conformance_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/steps/report"
)

// TestReadingsDocIsGenerated: docs/conformance-readings.md is the readings of
// the suite (internal/contract/readings.go and the @reading:<id> tags) and of
// the generated mode rendered, so the list cannot drift from the code.
func TestReadingsDocIsGenerated(t *testing.T) {
	fts, err := gherkin.Load(features.FS)
	require.NoError(t, err)
	want := report.ReadingsDoc(fts)
	got, err := os.ReadFile("docs/conformance-readings.md")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got),
		"docs/conformance-readings.md differs from the readings in code: run go generate ./internal/contract/ (or make generate) and commit")
	for _, r := range contract.GeneratedReadings() {
		assert.Contains(t, string(got), "`"+r.ID+"`", "the generated mode's reading %s is listed", r.ID)
	}
}
