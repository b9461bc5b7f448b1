package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/junit/junittest"
	"github.com/partnercommerce/conformance/steps/report"
)

// TestJUnitAgreesWithSummary: every count of junit.xml, read as
// CI systems read it, equals summary.json's; a skipped scenario is one
// <skipped message>, a failure carries its group in message and its report in the body, every
// testcase has a classname.
func TestJUnitAgreesWithSummary(t *testing.T) {
	t.Parallel()
	_, dir, _ := reportRun(t)
	var sum report.Summary
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	ju, _ := junittest.Read(t, filepath.Join(dir, "junit.xml"))

	tot := sum.Totals
	assert.Equal(t, tot.Passed+tot.Failed+tot.Skipped+tot.Undefined, ju.Tests, "tests")
	assert.Equal(t, tot.Failed, ju.Failures, "failures")
	assert.Equal(t, tot.Skipped, ju.Skipped, "skipped")
	assert.Equal(t, tot.Undefined, ju.Errors, "errors")

	var titles []string
	for _, g := range sum.FailureGroups {
		titles = append(titles, g.Title())
	}
	var cases, failures, skipped int
	for _, s := range ju.Suites {
		var f, sk int
		for _, c := range s.Cases {
			assert.Equal(t, s.Name, c.Classname, "classname is the feature")
			for _, e := range c.Errors {
				assert.NotEqual(t, "skipped", e.Type, "a skip is never an error: %s", c.Name)
			}
			if len(c.Skipped) == 1 {
				sk++
				assert.Contains(t, c.Skipped[0].Message, "profile lacks funded_customer.token")
			}
			if len(c.Failures) == 1 {
				f++
				assert.Contains(t, titles, c.Failures[0].Message, "the message is the title of the failure's group")
				assert.Contains(t, c.Failures[0].Body, "expected:", "the failure text is the body")
			}
		}
		assert.Equal(t, s.Failures, f, s.Name)
		assert.Equal(t, s.Skipped, sk, s.Name)
		cases += len(s.Cases)
		failures += f
		skipped += sk
	}
	assert.Equal(t, ju.Tests, cases)
	assert.Equal(t, tot.Failed, failures)
	assert.Equal(t, tot.Skipped, skipped)
	assert.Len(t, sum.Scenarios, cases)
}
