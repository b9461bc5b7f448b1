package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/version"
)

// TestVersion: --version prints the build and exits 0, before
// any flag of a run is parsed.
func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr strings.Builder
	require.NoError(t, run(context.Background(), []string{"--version"}, func(string) string { return "" }, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "spec sha256:   "+version.SpecSHA256())
	assert.Contains(t, stdout.String(), "suite version: "+version.Suite)
}
