package report_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
)

// TestPrettyConsole: with concurrent scenarios, each scenario is written
// whole; a skipped scenario is never shown as passed (no godog summary
// counting it so); each distinct failure is printed once;
// the five slowest scenarios close the run; no colour unless asked.
func TestPrettyConsole(t *testing.T) {
	t.Parallel()
	res, _, out := reportRun(t)
	assert.NotContains(t, out, "\x1b[", "no colour unless Options.Color")
	assert.NotRegexp(t, regexp.MustCompile(`\d+ scenarios \(\d+ passed\)`), out, "godog's summary counts skipped scenarios as passed")

	blocks := strings.Split(out, "\n\n")
	headers := 0
	for _, b := range blocks {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		status, _, _ := strings.Cut(lines[0], " ")
		switch status {
		case "PASSED", "FAILED", "SKIPPED":
		default:
			continue
		}
		headers++
		for _, l := range lines[1:] {
			assert.True(t, strings.HasPrefix(l, "  "), "a line of another scenario inside %q: %q", lines[0], l)
			assert.NotRegexp(t, `^\s*\|`, l, "an example row inside %q", lines[0])
		}
		if status == "SKIPPED" {
			assert.Contains(t, b, "profile lacks")
		}
	}
	assert.Equal(t, len(res.Summary.Scenarios), headers, "one block per scenario")
	assert.Equal(t, len(res.Summary.FailureGroups), strings.Count(out, "found: "), "each distinct failure once")
	assert.Equal(t, res.Failed-len(res.Summary.FailureGroups), strings.Count(out, "same cause as "), "the others name the first")
	_, slowest, ok := strings.Cut(out, "slowest scenarios:\n")
	require.True(t, ok)
	assert.Len(t, strings.Split(strings.Split(slowest, "\n\n")[0], "\n"), 5)
}

// TestColorConsole: Options.Color paints the console.
func TestColorConsole(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	var out bytes.Buffer
	_, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Tags: "@payment-methods", Output: &out, Color: true,
	})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "\x1b[32m")
}
