package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocsWritesTheLivingDocumentation: `conformance docs --out DIR` writes
// report.html from the features without a server; bad usage exits 2.
func TestDocsWritesTheLivingDocumentation(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "docs")
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitPass, run(context.Background(), []string{"docs", "--out", dir}, noEnv, &stdout, &stderr), stderr.String())
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	page := string(data)
	assert.True(t, strings.Contains(page, "Living documentation: not run against a server"), "the page says nothing ran")
	assert.Greater(t, strings.Count(page, `<article class="scenario not-run"`), 80)
	assert.Contains(t, stdout.String(), "report.html")

	for name, args := range map[string][]string{
		"no --out":       {"docs"},
		"extra argument": {"docs", "--out", dir, "more"},
		"unknown flag":   {"docs", "--target", "http://127.0.0.1:1"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, exitUsage, run(context.Background(), args, noEnv, &stdout, &stderr))
		})
	}
}
