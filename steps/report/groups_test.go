package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/verdict"
)

// TestGroupFailuresByCause: failures group by the fields of their cause,
// never by their text; the largest group comes first; a failure no check
// described groups by its first line.
func TestGroupFailuresByCause(t *testing.T) {
	t.Parallel()
	logo := &verdict.Cause{Operation: "syncProducts", Check: "openapi.yaml", Field: "data.products[].operator.logo", Rule: "missing required property",
		Headline: "syncProducts answered without `data.products[].operator.logo` (required by openapi.yaml, §2.1)"}
	typo := &verdict.Cause{Operation: "createPayment", Check: "§4.6", Expected: `the message "Pembayaran berhasil diproses."`,
		Headline: `createPayment: expected the message "Pembayaran berhasil diproses."`}
	results := []verdict.Case{
		{Name: "a", Location: "a.feature:1", Status: verdict.StatusFailed, Cause: typo, Reason: "found: typo at 10:01"},
		{Name: "b", Location: "b.feature:1", Status: verdict.StatusFailed, Cause: logo, Reason: "found: at /data/products/0/operator/logo"},
		{Name: "c", Location: "c.feature:1", Status: verdict.StatusPassed},
		{Name: "d", Location: "d.feature:1", Status: verdict.StatusFailed, Cause: logo, Reason: "found: at /data/products/3/operator/logo"},
		{Name: "e", Location: "e.feature:1", Status: verdict.StatusFailed, Cause: typo, Reason: "found: typo at 10:02"},
		{Name: "f", Location: "f.feature:1", Status: verdict.StatusFailed, Cause: logo, Reason: "found: another text"},
		{Name: "g", Status: verdict.StatusUndefined, Reason: "step \"x\" is undefined\nmore"},
	}
	groups := GroupFailures(results)
	assert.Equal(t, []FailureGroup{
		{Cause: *logo, Count: 3, Scenarios: []GroupScenario{{"b.feature:1", "b"}, {"d.feature:1", "d"}, {"f.feature:1", "f"}}, Judge: verdict.JudgeScenarios},
		{Cause: *typo, Count: 2, Scenarios: []GroupScenario{{"a.feature:1", "a"}, {"e.feature:1", "e"}}, Judge: verdict.JudgeScenarios},
		{Cause: verdict.Cause{Headline: `a step has no definition: step "x" is undefined`}, Count: 1, Scenarios: []GroupScenario{{Name: "g"}}, Judge: verdict.JudgeScenarios},
	}, groups)
	assert.Equal(t, "3 scenarios failed on one check: syncProducts answered without `data.products[].operator.logo` (required by openapi.yaml, §2.1)", groups[0].Title())
	assert.Equal(t, `1 scenario failed: a step has no definition: step "x" is undefined`, groups[2].Title())
	assert.Empty(t, GroupFailures(results[2:3]))
	assert.NotNil(t, GroupFailures(nil), "summary.json holds [] rather than null")
}

// TestBlockedGroupTitle: scenarios a precondition's cause kept from their
// rule are listed under the cause as blocked, not as failed.
func TestBlockedGroupTitle(t *testing.T) {
	c := &verdict.Cause{Operation: "syncProducts", Headline: "syncProducts answered a product without id", Blocked: true}
	var results []verdict.Case
	for _, n := range []string{"a", "b"} {
		results = append(results, verdict.Case{Name: n, Judge: verdict.JudgeScenarios, Status: verdict.StatusNotJudged, Cause: c})
	}
	groups := GroupNotJudged(results)
	if len(groups) != 1 || groups[0].Title() != "blocks 2 scenarios: syncProducts answered a product without id" {
		t.Fatalf("groups: %+v", groups)
	}
}
