package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/verdict"
)

// withCases is s with results added and counted, its groups made as a
// run makes them.
func withCases(s Summary, results ...verdict.Case) Summary {
	for _, r := range results {
		s.Scenarios = append(s.Scenarios, r)
		s.Totals.Add(r)
	}
	s.FailureGroups = GroupFailures(s.Scenarios)
	s.NotJudgedGroups = GroupNotJudged(s.Scenarios)
	return s
}

// refused is a scenario not judged because the target refused its
// gateway payment.
func refused(name string) verdict.Case {
	return verdict.Case{Name: name, Feature: "payments.feature", Judge: verdict.JudgeScenarios, Status: verdict.StatusNotJudged,
		Reason: "the target refused a payment through gateway method 1 with 422 \"Saldo tidak mencukupi.\"",
		Cause: &verdict.Cause{Operation: "createPayment", Check: "gateway payment refused", Expected: `422 "Saldo tidak mencukupi."`,
			Headline: `every gateway payment was refused with 422 "Saldo tidak mencukupi."`}}
}

// TestVerdictOfEveryJudge: a run's verdict is one for all its judges: a
// failed property fails the run whose scenarios all passed; a rule not
// judged makes it INCOMPLETE, never PASS; a failure wins over what was not
// judged; a skip the profile causes leaves it a PASS.
func TestVerdictOfEveryJudge(t *testing.T) {
	t.Parallel()
	property := func(status string) verdict.Case {
		return verdict.Case{Name: "createPayment: valid requests", Feature: verdict.JudgeGenerated, Judge: verdict.JudgeGenerated, Status: status,
			Reason: "500 on promotion_id 0", Cause: &verdict.Cause{Operation: "createPayment", Check: "valid requests", Headline: "a 500"}}
	}
	skippedByProfile := verdict.Case{Name: "A mixed payment", Feature: "payments.feature", Judge: verdict.JudgeScenarios, Status: verdict.StatusSkipped,
		Reason: "the profile lacks mixed_customer.token"}
	cases := []struct {
		name    string
		results []verdict.Case
		verdict string
		line    string
	}{
		{"scenarios and properties passed", []verdict.Case{property(verdict.StatusPassed)}, verdict.VerdictPass, "PASS: 2 passed"},
		{"a property failed", []verdict.Case{property(verdict.StatusFailed)}, verdict.VerdictFail, "FAIL: 1 passed (1 with warnings), 1 failed"},
		{"a rule not judged", []verdict.Case{refused("A payment through a gateway"), refused("A remainder")}, verdict.VerdictIncomplete,
			`INCOMPLETE: 2 scenarios not judged: every gateway payment was refused with 422 "Saldo tidak mencukupi."; 1 passed (1 with warnings), 0 failed, 0 skipped, 2 not judged`},
		{"a failure and a rule not judged", []verdict.Case{property(verdict.StatusFailed), refused("A remainder")}, verdict.VerdictFail,
			"FAIL: 1 passed (1 with warnings), 1 failed, 0 skipped, 1 not judged"},
		{"a capability the profile lacks", []verdict.Case{skippedByProfile}, verdict.VerdictPass, "PASS: 1 passed (1 with warnings), 0 failed, 1 skipped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := withCases(oneScenario(), tc.results...)
			assert.Equal(t, tc.verdict, s.Verdict())
			var b strings.Builder
			PrintSummary(&b, s)
			assert.Contains(t, b.String(), "\nRESULT: "+tc.line)
		})
	}
}

// TestNotJudgedIsToldApartInEveryWriter: a scenario not judged is told
// by its cause in the console's summary, summary.json (which carries the
// run's verdict and exit code), junit.xml (an error naming its cause: a
// skip would leave a CI test tab green for an INCOMPLETE run), cucumber.json
// and the page; a property is a test case of its judge in each; the RESULT
// line splits the count by judge.
func TestNotJudgedIsToldApartInEveryWriter(t *testing.T) {
	t.Parallel()
	prop := verdict.Case{Name: "sequences: stateful sequences", Feature: verdict.JudgeGenerated, Judge: verdict.JudgeGenerated, Status: verdict.StatusPassed, Seconds: 0.5}
	s := withCases(oneScenario(), refused("A payment through a gateway"), prop)
	s.Judges = []verdict.JudgeRun{
		{Name: verdict.JudgeScenarios, State: verdict.JudgeRan, Unit: "scenarios", Examples: 2, Planned: 2, Counts: verdict.Counts{Passed: 1, NotJudged: 1}},
		{Name: verdict.JudgeGenerated, State: verdict.JudgeRan, Unit: "examples", Examples: 10, Planned: 50, Seed: 7, Counts: verdict.Counts{Passed: 1},
			Cuts: []string{"sequences: stateful sequences: 10 of 50 examples run: the target throttled"}},
		{Name: verdict.JudgeProbe, State: verdict.JudgeNotAsked, Reason: "left out with --judges"},
	}

	var console strings.Builder
	PrintSummary(&console, s)
	out := console.String()
	assert.Contains(t, out, "1 scenario not judged, by cause (1 cause):\n  1 scenario not judged: every gateway payment was refused")
	assert.Contains(t, out, "judges:\n  scenarios  2 scenarios: 1 passed, 1 not judged")
	assert.Contains(t, out, "  generated  1 property: 1 passed; 10 of 50 examples run, seed 7")
	assert.Contains(t, out, "sequences: stateful sequences: 10 of 50 examples run: the target throttled")
	assert.Contains(t, out, "  probe      not asked: left out with --judges")
	assert.Regexp(t, `\nRESULT: INCOMPLETE: .*; 2 scenarios, 1 property \(10 examples\) in [0-9.]+( [mµ]?s)?\n`, out, "the count split by judge, the one not asked left out")

	var sum bytes.Buffer
	require.NoError(t, WriteSummary(&sum, s))
	var doc struct {
		Verdict         string             `json:"verdict"`
		ExitCode        *int               `json:"exit_code"`
		Totals          verdict.Counts     `json:"totals"`
		Judges          []verdict.JudgeRun `json:"judges"`
		NotJudgedGroups []FailureGroup     `json:"not_judged_groups"`
		Scenarios       []verdict.Case     `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(sum.Bytes(), &doc))
	assert.Equal(t, 1, doc.Totals.NotJudged)
	assert.Equal(t, verdict.VerdictIncomplete, doc.Verdict)
	require.NotNil(t, doc.ExitCode, "summary.json carries the exit code")
	assert.Equal(t, verdict.ExitIncomplete, *doc.ExitCode)
	require.Len(t, doc.NotJudgedGroups, 1)
	assert.Equal(t, 1, doc.NotJudgedGroups[0].Count)
	assert.Len(t, doc.Judges, 3)
	assert.Equal(t, verdict.JudgeGenerated, doc.Scenarios[2].Judge)

	var junit bytes.Buffer
	require.NoError(t, WriteJUnit(&junit, nil, s))
	assert.Contains(t, junit.String(), `<error message="not judged: every gateway payment was refused with 422 &#34;Saldo tidak mencukupi.&#34;" type="not-judged">`)
	assert.NotContains(t, junit.String(), "<skipped", "a case not judged is no skip")
	assert.Contains(t, junit.String(), `<testsuite name="Generated properties and stateful sequences"`)

	var cuke bytes.Buffer
	require.NoError(t, WriteCucumber(&cuke, s))
	assert.Contains(t, cuke.String(), `"name": "sequences: stateful sequences"`, "a property is an element of its judge's feature")

	fts, err := gherkin.Load(features.FS)
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, WriteHTMLReport(&page, fts, s, nil))
	assert.Contains(t, page.String(), `id="not-judged-groups"`)
	assert.Contains(t, page.String(), `id="judges-table"`)
	assert.Contains(t, page.String(), `data-outcome="passed" data-area="generated"`, "the property is an article of its judge's area")
	assert.Contains(t, page.String(), `<b id="count-not_judged">1</b>`)
}
