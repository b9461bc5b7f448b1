package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/verdict"
)

// warned is a summary with one scenario passed with a warning, one
// skipped and one failed.
func warned() Summary {
	w := contract.Warning{Reading: "settles-at-once", Sentence: "§3 Observed combination", Detail: "got SUCCESS"}
	return Summary{
		StartedAt: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), Seconds: 1.5,
		Scenarios: []verdict.Case{
			{Name: "covered", Feature: "payments.feature", Status: verdict.StatusPassed, Warnings: []contract.Warning{w}, Seconds: 0.2},
			{Name: "funded", Feature: "payments.feature", Status: verdict.StatusSkipped, Reason: "the profile lacks funded_customer.token"},
			{Name: "typo", Feature: "payments.feature", Status: verdict.StatusFailed, Reason: "found: a typo\n  expected: the message"},
		},
	}
}

// TestJUnitShowsWarnings: a warning is a property and
// system-out of a passing testcase, not a failure.
func TestJUnitShowsWarnings(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, nil, warned()))
	out := b.String()
	assert.Contains(t, out, `<property name="warning" value="reading settles-at-once: got SUCCESS">`)
	assert.Contains(t, out, "<system-out>WARNING (reading settles-at-once): got SUCCESS")
	assert.Contains(t, out, `tests="3" failures="1" errors="0" skipped="1"`)
	assert.Contains(t, out, `<skipped message="the profile lacks funded_customer.token">`)
	assert.Contains(t, out, `<failure message="1 scenario failed: found: a typo" type="failed">found: a typo`)
}

// TestCucumberShowsWarnings: a warning is output and a text/plain
// embedding of the scenario's last step; a skipped scenario says why on its
// first step and shows its steps skipped.
func TestCucumberShowsWarnings(t *testing.T) {
	t.Parallel()
	fts, err := gherkin.Load(fstest.MapFS{"payments.feature": {Data: []byte(`Feature: Payments
  Scenario: covered
    Given a
    Then b

  Scenario: funded
    Given a
    Then b

  Scenario: typo
    Given a
`)}})
	require.NoError(t, err)
	sum := warned()
	for i := range sum.Scenarios {
		r := &sum.Scenarios[i]
		r.Entry = fts.Files[0].Scenarios[i]
		status := map[string]string{verdict.StatusPassed: "passed", verdict.StatusSkipped: "skipped", verdict.StatusFailed: "failed"}[r.Status]
		for _, st := range r.Entry.Steps {
			r.Steps = append(r.Steps, verdict.StepRun{Text: st.Text, Status: status, Location: "steps.go:1"})
		}
	}
	var b bytes.Buffer
	require.NoError(t, WriteCucumber(&b, sum))
	var feats []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Output     []string `json:"output"`
				Embeddings []struct {
					MimeType string `json:"mime_type"`
					Data     string `json:"data"`
				} `json:"embeddings"`
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &feats))
	require.Len(t, feats, 1)
	assert.Equal(t, "payments.feature", feats[0].URI)
	require.Len(t, feats[0].Elements, 3)
	last := feats[0].Elements[0].Steps[1]
	require.Len(t, last.Output, 1)
	assert.Contains(t, last.Output[0], "settles-at-once")
	require.Len(t, last.Embeddings, 1)
	assert.Equal(t, "text/plain", last.Embeddings[0].MimeType)
	text, err := base64.StdEncoding.DecodeString(last.Embeddings[0].Data)
	require.NoError(t, err)
	assert.Contains(t, string(text), "got SUCCESS")
	funded := feats[0].Elements[1].Steps
	assert.Equal(t, "the profile lacks funded_customer.token", funded[0].Result.Error)
	assert.Equal(t, "skipped", funded[1].Result.Status)
	assert.Empty(t, funded[1].Result.Error)
}

// TestConsoleShowsWarnings: the pretty console says PASSED WITH WARNINGS
// and prints each warning.
func TestConsoleShowsWarnings(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := NewConsole(&b, "pretty", false)
	for _, r := range warned().Scenarios {
		c.Scenario(r)
	}
	out := b.String()
	assert.Contains(t, out, "PASSED WITH WARNINGS covered")
	assert.Contains(t, out, "WARNING (reading settles-at-once): got SUCCESS")
	assert.Contains(t, out, "SKIPPED funded")
	assert.Equal(t, 1, strings.Count(out, "found: a typo"))

	b.Reset()
	c = NewConsole(&b, "progress", false)
	for _, r := range warned().Scenarios {
		c.Scenario(r)
	}
	c.Finish(warned())
	assert.True(t, strings.HasPrefix(b.String(), "WSF\n"), b.String())
	assert.Equal(t, 1, strings.Count(b.String(), "found: a typo"))
}
