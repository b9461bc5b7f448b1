package steps_test

import (
	"context"
	"io"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// TestUndefinedStepsFailTheRun: a step without a definition is never
// silently passed (godog Strict).
func TestUndefinedStepsFailTheRun(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	fsys := fstest.MapFS{"x.feature": {Data: []byte(`@products
Feature: x
  Scenario: a step nobody wrote
    Given the partner's main account
    When the main account does something the document never mentions
`)}}
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Features: stepstest.Features(t, fsys), Output: io.Discard, Format: "progress",
	})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Undefined)
	assert.Zero(t, res.Passed)
	assert.False(t, res.OK())
}
