package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// TestEveryGatewayPaymentRefusedIsIncomplete: against a reference that
// refuses every gateway payment with 422 "Saldo tidak mencukupi." (an
// answer the document allows for one payment), the scenarios that need one
// are not judged, and the run says so: INCOMPLETE (exit 2), never PASS,
// with the count of the scenarios not judged and the cause, in the verdict
// line and summary.json. (Before, it said "RESULT: PASS: … 18 skipped".)
func TestEveryGatewayPaymentRefusedIsIncomplete(t *testing.T) {
	t.Parallel()
	url := faultyReference(t, reference.FaultGatewayPaymentsRefused)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--target", url, "--profile", writeFile(t, referenceProfile(t)), "--tags", "@payments or @payment-status",
		"--format", "progress", "--report-dir", dir}, noEnv, &stdout, &stderr)
	out := stdout.String()
	require.Equal(t, exitIncomplete, code, "%s\n%s", out, stderr.String())

	cause := `every gateway payment was refused with 422 "Saldo tidak mencukupi."`
	m := regexp.MustCompile(`(?m)^RESULT: INCOMPLETE: (\d+) scenarios not judged: ` + regexp.QuoteMeta(cause) + `; \d+ passed .*, 0 failed, 0 skipped, (\d+) not judged; \d+ scenarios in [0-9.]+ m?s$`).FindStringSubmatch(out)
	require.NotNil(t, m, "the verdict line names the count and the cause:\n%s", out)
	assert.Equal(t, m[1], m[2])

	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum report.Summary
	require.NoError(t, json.Unmarshal(data, &sum))
	n, _ := strconv.Atoi(m[1])
	assert.Equal(t, n, sum.Totals.NotJudged)
	require.Len(t, sum.NotJudgedGroups, 1)
	assert.Equal(t, cause, sum.NotJudgedGroups[0].Headline)
	assert.Equal(t, n, sum.NotJudgedGroups[0].Count)
	assert.Zero(t, sum.Totals.Skipped, "a rule the target kept from being judged is not a skip")
}

// TestProfileWithoutACapabilityStillPasses: a skip the profile causes (a
// capability it does not declare) stays a skip, listed with its reason,
// and the run passes.
func TestProfileWithoutACapabilityStillPasses(t *testing.T) {
	t.Parallel()
	text := strings.Replace(referenceProfile(t), "mixed_customer:\n  token: tok-nusantara-mixed\n", "", 1)
	require.NotEqual(t, referenceProfile(t), text)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--target", faultyReference(t), "--profile", writeFile(t, text), "--tags", "@payments",
		"--format", "progress"}, noEnv, &stdout, &stderr)
	out := stdout.String()
	require.Equal(t, exitPass, code, "%s\n%s", out, stderr.String())
	assert.Contains(t, out, "mixed-payment          SKIPPED: profile lacks mixed_customer.token")
	assert.Regexp(t, `SKIPPED: payments.feature — .*: the profile lacks mixed_customer.token`, out)
	assert.Regexp(t, `(?m)^RESULT: PASS: \d+ passed \(0 with warnings\), 0 failed, [1-9]\d* skipped; \d+ scenarios in [0-9.]+ m?s$`, out)
}

// TestJudgesNarrowTheRun: --judges asks only the judges it names, and the
// summary says which were not asked; a run that selects scenarios asks
// the scenarios alone unless --judges says otherwise, and says so (not that
// --judges left the others out); an unknown judge is a usage error.
func TestJudgesNarrowTheRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string
		lacks    []string
	}{
		{"the generated judge alone", []string{"--judges", "generated", "--examples", "5"}, exitPass, []string{
			"  scenarios  not asked: left out with --judges", "  generated  15 properties: 15 passed; ", "  probe      not asked"}, nil},
		{"scenarios selected by tags", []string{"--tags", "@payment-methods"}, exitPass, []string{"RESULT: PASS: 2 passed",
			"  generated  not asked: " + leftOutBySelection, "  probe      not asked: " + leftOutBySelection}, []string{"--judges\n"}},
		{"an unknown judge", []string{"--judges", "scenarios,oracle"}, exitUsage, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(tc.args, "--format", "progress"), noEnv, &stdout, &stderr)
			require.Equal(t, tc.code, code, "%s\n%s", stdout.String(), stderr.String())
			for _, s := range tc.contains {
				assert.Contains(t, stdout.String(), s)
			}
			for _, s := range tc.lacks {
				assert.NotContains(t, stdout.String(), s)
			}
			if tc.code == exitUsage {
				assert.Contains(t, stderr.String(), `unknown judge "oracle"`)
			}
		})
	}
}

// TestEveryReportHoldsEveryJudge: a run of the scenarios and the generated
// judge writes one report set in which a property is a test case like a
// scenario: junit.xml has a suite of the properties, cucumber.json a
// feature, summary.json the judges with their budget, seed and examples,
// the page an area; the console prints each property as it ends and the
// seed, and --seed repeats it.
func TestEveryReportHoldsEveryJudge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--judges", "scenarios,generated", "--tags", "@payment-methods", "--examples", "5", "--seed", "42",
		"--report-dir", dir}, noEnv, &stdout, &stderr)
	require.Equal(t, exitPass, code, "%s\n%s", stdout.String(), stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "PASSED sequences: stateful sequences agree with the document's model # generated", "each property as it ends")
	assert.Contains(t, out, ", seed 42, ")
	assert.Contains(t, out, "  probe      not asked: left out with --judges")

	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum report.Summary
	require.NoError(t, json.Unmarshal(data, &sum))
	require.Len(t, sum.Judges, 3)
	gen := sum.Judges[1]
	assert.Equal(t, verdict.JudgeGenerated, gen.Name)
	assert.Equal(t, verdict.JudgeRan, gen.State)
	assert.Equal(t, uint64(42), gen.Seed)
	assert.Equal(t, 15, gen.Counts.Passed)
	assert.Equal(t, gen.Planned, gen.Examples, "nothing cut")
	assert.Contains(t, gen.Budget, "5 examples a property")
	assert.Equal(t, verdict.JudgeNotAsked, sum.Judges[2].State)
	assert.Equal(t, 2+15, sum.Totals.Passed, "2 scenarios and 15 properties")

	for file, want := range map[string]string{
		"junit.xml":     `<testsuite name="Generated properties and stateful sequences"`,
		"cucumber.json": `"name": "Generated properties and stateful sequences"`,
		"report.html":   `id="area-judge-generated"`,
	} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		assert.Contains(t, string(data), want, file)
	}
}

// TestABudgetThatCutsARaceIsIncomplete: a --budget too short for the
// waves a race needs (every answer is 100 ms late, so a wave of the probe
// takes 300 ms at least, and a second of budget holds four at most, where a
// race needs five) leaves the race cases not judged: the run is INCOMPLETE
// (exit 2) and says what to change. Before, a case cut to one wave of
// twenty passed, and so did the run.
func TestABudgetThatCutsARaceIsIncomplete(t *testing.T) {
	t.Parallel()
	stdout, _ := runCode(t, exitIncomplete, []string{"--target", lateAnswers(t, 100*time.Millisecond), "--profile", writeFile(t, referenceProfile(t)),
		"--judges", "probe", "--budget", "1s", "--format", "progress", "--report-dir", t.TempDir()}, noEnv)
	assert.Regexp(t, `(?m)^RESULT: INCOMPLETE: `, stdout)
	assert.Contains(t, stdout, "and a race needs 5 at least to be judged")
	assert.Contains(t, stdout, "(leave --budget out, or raise it)")
}

// TestRerunFailedReachesEveryJudge: after a run whose only failures are
// probe cases (a wallet that loses an update under concurrent payments),
// --rerun-failed runs those cases again with the probe's seed, and only
// them (not the lookups that passed), and exits with the new run's verdict. Before, rerun.txt listed only
// scenarios: it said "the last run had no failed scenario; nothing to
// run" and exited 0 after a FAIL.
func TestRerunFailedReachesEveryJudge(t *testing.T) {
	t.Parallel()
	url, prof, dir := faultyReference(t, reference.FaultLostUpdateDebit), writeFile(t, referenceProfile(t)), t.TempDir()
	args := []string{"--target", url, "--profile", prof, "--format", "progress", "--report-dir", dir}
	first, _ := runCode(t, exitFail, args, noEnv)
	require.Contains(t, first, "FAILED createPayment: concurrent payments from one wallet # probe", "the probe finds the lost update")

	again, _ := runCode(t, exitFail, append(args, "--rerun-failed"), noEnv)
	assert.Contains(t, again, "FAILED createPayment: concurrent payments from one wallet # probe")
	assert.Contains(t, again, "  scenarios  not asked: nothing of it failed, or was not judged, in the last run")
	assert.Contains(t, again, "  generated  not asked: nothing of it failed, or was not judged, in the last run")
	seed := regexp.MustCompile(`  probe      3 probe cases: .*, seed ([0-9]+),`).FindStringSubmatch(first)
	require.NotNil(t, seed, first)
	assert.Regexp(t, `  probe      [12] probe cases?: [12] failed; .*, seed `+seed[1]+`,`, again, "the failed cases alone, with the last run's seed")
	assert.NotContains(t, again, "getPaymentStatus", "the lookups passed: they are not run again")
}

// TestABodyFormatIsOneCauseAcrossJudges: against a reference that answers
// its errors as text, the whole run (scenarios, generated properties,
// probe) reads one cause, the body's format, whichever judge saw it; the
// probe names the format, not its concurrency rule. Before, the run read
// five causes: the scenarios', three properties' (their headlines the raw
// failure), and the probe's "409 and the message \"\"".
func TestABodyFormatIsOneCauseAcrossJudges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runCode(t, exitFail, []string{"--target", faultyReference(t, reference.FaultErrorsAsText), "--profile", writeFile(t, referenceProfile(t)),
		"--format", "progress", "--report-dir", dir, "--seed", "3"}, noEnv)
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum report.Summary
	require.NoError(t, json.Unmarshal(data, &sum))
	require.Len(t, sum.FailureGroups, 1, "one cause: %+v", sum.FailureGroups)
	g := sum.FailureGroups[0]
	assert.Equal(t, "the body", g.Field)
	assert.Equal(t, "not JSON", g.Rule)
	judged := map[string]bool{}
	for _, s := range sum.Scenarios {
		if s.Status == verdict.StatusFailed {
			judged[s.Judge] = true
		}
	}
	assert.Equal(t, map[string]bool{verdict.JudgeScenarios: true, verdict.JudgeGenerated: true, verdict.JudgeProbe: true}, judged, "every judge saw it")
}

// lateAnswers serves the reference, each answer delay late: a wave of the
// probe then takes a known least time, whatever the machine.
func lateAnswers(t *testing.T, delay time.Duration) string {
	t.Helper()
	ref := httpapitest.Handler(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
