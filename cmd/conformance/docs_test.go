package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// TestDocsWritesTheLivingDocumentation: `conformance docs --out DIR` writes
// the living documentation from the features without a server: its own
// title, no run badge or outcome filter; bad usage exits 2.
func TestDocsWritesTheLivingDocumentation(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "docs")
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitPass, run(context.Background(), []string{"docs", "--out", dir}, noEnv, &stdout, &stderr), stderr.String())
	data, err := os.ReadFile(filepath.Join(dir, "living-docs.html"))
	require.NoError(t, err)
	page := string(data)
	assert.Contains(t, page, "<title>Partner Commerce API v2 — living documentation</title>")
	assert.Greater(t, strings.Count(page, `<article class="rule"`), 40)
	assert.NotContains(t, page, "not-run")
	assert.NotContains(t, page, "f-outcome")
	assert.Equal(t, 1, strings.Count(page, `id="readings-box"`))
	assert.Contains(t, stdout.String(), "living-docs.html")

	for name, args := range map[string][]string{
		"no --out":       {"docs"},
		"extra argument": {"docs", "--out", dir, "more"},
		"unknown flag":   {"docs", "--target", "http://127.0.0.1:1"},
		"no summary":     {"docs", "--out", dir, "--summary", filepath.Join(dir, "missing.json")},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, exitUsage, run(context.Background(), args, noEnv, &stdout, &stderr))
		})
	}
}

// TestDocsOverlaysARun: with --summary, the living documentation shows the
// outcome of that run on each rule.
func TestDocsOverlaysARun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sum := report.Summary{Target: "http://partner.example", Scenarios: []verdict.Case{
		{Feature: "payment_methods.feature", Name: "A cashier lists the payment methods with every documented field", Status: verdict.StatusFailed},
	}}
	raw, err := json.Marshal(sum)
	require.NoError(t, err)
	path := filepath.Join(dir, "summary.json")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitPass, run(context.Background(), []string{"docs", "--out", dir, "--summary", path}, noEnv, &stdout, &stderr), stderr.String())
	data, err := os.ReadFile(filepath.Join(dir, report.FileLivingDocs))
	require.NoError(t, err)
	assert.Contains(t, string(data), `id="docs-run"`)
	assert.Contains(t, string(data), "http://partner.example")
	assert.Contains(t, string(data), `<span class="run failed">last run: failed</span>`)
}
