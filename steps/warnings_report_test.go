package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// TestWarningsInEveryOutput: a real run against a server
// that does not follow a reading shows the warning in the pretty console,
// junit.xml (property and system-out of a passing testcase) and
// cucumber.json (output of the last step), and exits as a pass.
func TestWarningsInEveryOutput(t *testing.T) {
	t.Parallel()
	ref := httpapitest.NewServer(t)
	srv := httptest.NewServer(rewriteProfileCoins(t, ref.Config.Handler, oddCoinsRoundedUp))
	t.Cleanup(srv.Close)
	var out bytes.Buffer
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Features: stepstest.Features(t, coinScenario("")),
		Format: "pretty", Output: &out, ReportDir: dir, RequestTimeout: 5 * time.Second,
	})
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Equal(t, 1, res.Summary.Totals.Warned)
	reading := res.Summary.Scenarios[0].Warnings[0].Reading

	assert.Contains(t, out.String(), "PASSED WITH WARNINGS The profile values two coins at one rupiah")
	assert.Contains(t, out.String(), "WARNING (reading "+reading+")")

	page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<div id="warnings-banner">`)
	assert.Contains(t, string(page), "<li><b>"+reading+"</b>:", "the banner lists the reading not followed")

	data, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var ju struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Failures   []struct{} `xml:"failure"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			SystemOut string `xml:"system-out"`
		} `xml:"testsuite>testcase"`
	}
	require.NoError(t, xml.Unmarshal(data, &ju))
	require.Len(t, ju.Cases, 1)
	c := ju.Cases[0]
	assert.Empty(t, c.Failures, "a warning is not a failure")
	assert.Zero(t, ju.Failures)
	require.NotEmpty(t, c.Properties)
	assert.Equal(t, "warning", c.Properties[0].Name)
	assert.Contains(t, c.Properties[0].Value, reading)
	assert.Contains(t, c.SystemOut, "WARNING (reading "+reading+")")

	data, err = os.ReadFile(filepath.Join(dir, "cucumber.json"))
	require.NoError(t, err)
	var feats []struct {
		Elements []struct {
			Steps []struct {
				Output []string `json:"output"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(data, &feats))
	require.Len(t, feats, 1)
	steps := feats[0].Elements[0].Steps
	require.NotEmpty(t, steps[len(steps)-1].Output)
	assert.Contains(t, steps[len(steps)-1].Output[0], reading)
}
