package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// oneScenario is the summary of a run of one scenario with one warning.
func oneScenario() Summary {
	r := verdict.Case{Name: "A cashier lists the payment methods", Feature: "payment_methods.feature", Location: "payment_methods.feature:7",
		Tags: []string{"payment-methods"}, Status: verdict.StatusPassed, Seconds: 0.07,
		Warnings: []contract.Warning{{Reading: "settles-at-once", Sentence: "§3", Detail: "got SUCCESS"}}}
	s := Summary{Target: "http://127.0.0.1:8080", Areas: map[string]verdict.Counts{}, Capabilities: map[string]Capability{},
		Scenarios: []verdict.Case{r}, Warnings: WarningsByReading([]verdict.Case{r})}
	s.Totals.Add(r)
	c := s.Areas["payment-methods"]
	c.Add(r)
	s.Areas["payment-methods"] = c
	for _, c := range profiles.Capabilities() {
		s.Capabilities[string(c)] = Capability{Available: true}
	}
	s.Coverage = Coverage{Operations: map[string]OperationCoverage{"listPaymentMethods": {Documented: []int{200}, Exercised: []int{200}}},
		Messages: []string{"OK"}}
	return s
}

// TestSummaryOfOneScenario: a run of one scenario prints no table of
// areas or capabilities full of zeros, no heading without content, and
// its counts in the singular.
func TestSummaryOfOneScenario(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	PrintSummary(&b, oneScenario())
	out := b.String()
	assert.Contains(t, out, "coverage: 1 operation, 1 of 1 documented status code received, 1 message asserted\n")
	assert.Contains(t, out, "warnings: 1 reading of the document not followed")
	for _, absent := range []string{"area ", "capabilities:", "slowest scenarios:", " 0       0 "} {
		assert.NotContains(t, out, absent)
	}
	assert.NotRegexp(t, `\b1 (messages|readings|operations|scenarios|causes)\b`, out)

	st := verdict.Stop{Cause: verdict.StopInterrupted, Reason: "the run was interrupted", AfterScenarios: 1, NotRun: 1}
	assert.Equal(t, "INTERRUPTED after 1 scenario: the run was interrupted; 1 scenario not run (none counted as failed)", st.Banner())
}

// TestSummaryPrintsWhatHasContent: a capability the profile lacks is
// named though no scenario ran, one that scenarios needed has its counts,
// and the others are left out.
func TestSummaryPrintsWhatHasContent(t *testing.T) {
	t.Parallel()
	s := oneScenario()
	s.Capabilities["funded"] = Capability{Available: false, Missing: []string{"funded_customer.token"}}
	s.Capabilities["isolation"] = Capability{Available: true, Counts: verdict.Counts{Passed: 2}}
	var b strings.Builder
	PrintSummary(&b, s)
	out := b.String()
	_, caps, ok := strings.Cut(out, "capabilities:\n")
	assert.True(t, ok, out)
	caps, _, _ = strings.Cut(caps, "\n\n")
	assert.Equal(t, "  funded                 SKIPPED: profile lacks funded_customer.token\n  isolation              available (2 passed, 0 failed)", caps)
}
