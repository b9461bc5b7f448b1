package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// coinsRewrite rewrites the coins of a profile answer: it returns the new
// coin.available and coin.available_value for the coins the server had.
type coinsRewrite func(coins int64) (available, value int64)

// oddCoinsRoundedUp violates only a reading: the account holds one more
// coin, an odd number, and the odd coin is worth a rupiah (coins / 2
// rounded up), which the document allows and the suite's reading does not.
func oddCoinsRoundedUp(coins int64) (int64, int64) { return coins + 1, (coins + 2) / 2 }

// coinsNotHalved violates the document: the value is the number of coins.
func coinsNotHalved(coins int64) (int64, int64) { return coins, coins }

// rewriteProfileCoins decorates a server: every successful profile answer
// carries the coins of rewrite. It is a test double of a server that
// differs from the reference in the profile's coins only.
func rewriteProfileCoins(tb testing.TB, next http.Handler, rewrite coinsRewrite) http.Handler {
	tb.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if r.URL.Path == "/client/v2/customer/profile" && rec.Code == http.StatusOK {
			body = rewriteCoins(tb, body, rewrite)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

func rewriteCoins(tb testing.TB, body []byte, rewrite coinsRewrite) []byte {
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		tb.Errorf("the profile answer is not JSON: %v", err)
		return body
	}
	coin := doc["data"].(map[string]any)["coin"].(map[string]any)
	coins, err := coin["available"].(json.Number).Int64()
	require.NoError(tb, err)
	available, value := rewrite(coins)
	coin["available"], coin["available_value"] = available, value
	out, err := json.Marshal(doc)
	require.NoError(tb, err)
	return out
}

// coinScenario is a one-scenario feature that checks the profile's coins;
// tags go on the scenario.
func coinScenario(tags string) fstest.MapFS {
	return fstest.MapFS{"coins.feature": {Data: []byte(`Feature: Coins
  ` + tags + `
  Scenario: The profile values two coins at one rupiah
    Given the funded customer of the partner
    When the funded customer reads its profile
    Then the answer comes back with status 200 and the message "OK"
    And the coin value is half the number of coins, rounded down
`)}}
}

// runVerdict runs feats against srv and returns the result, the console
// output and summary.json.
func runVerdict(t *testing.T, srv *httptest.Server, feats fstest.MapFS, strict bool) (steps.Result, string, report.Summary) {
	t.Helper()
	var out bytes.Buffer
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{
		BaseURL: srv.URL, Profile: profiles.Reference(srv.URL), Features: stepstest.Features(t, feats), Strict: strict,
		Format: "progress", Output: &out, ReportDir: dir, RequestTimeout: 5 * time.Second,
	})
	require.NoError(t, err, out.String())
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum report.Summary
	require.NoError(t, json.Unmarshal(data, &sum))
	return res, out.String(), sum
}

// TestVerdictGradesReadingsApart: a server that departs from the suite only
// in a reading passes with a warning, shown in the result, summary.json and
// the summary line; a strict run fails it; a server that departs from the
// document fails whatever the mode; the reference passes clean.
func TestVerdictGradesReadingsApart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		rewrite  coinsRewrite
		tags     string
		strict   bool
		ok       bool
		warned   int
		failed   int
		advisory bool
		line     string
	}{
		{name: "reference", ok: true, line: "1 passed (0 with warnings), 0 failed, 0 skipped"},
		{name: "reading not followed", rewrite: oddCoinsRoundedUp, ok: true, warned: 1,
			line: "RESULT: PASS: 1 passed (1 with warnings), 0 failed, 0 skipped"},
		{name: "reading not followed (strict)", rewrite: oddCoinsRoundedUp, strict: true, failed: 1,
			line: "RESULT: FAIL: 0 passed (0 with warnings), 1 failed, 0 skipped"},
		{name: "document not followed", rewrite: coinsNotHalved, failed: 1,
			line: "RESULT: FAIL: 0 passed (0 with warnings), 1 failed, 0 skipped"},
		{name: "document not followed in an advisory scenario", rewrite: coinsNotHalved,
			tags: "@reading @reading:coin-value-rounds-down", ok: true, warned: 1, advisory: true,
			line: "RESULT: PASS: 1 passed (1 with warnings), 0 failed, 0 skipped"},
		{name: "document not followed in an advisory scenario (strict)", rewrite: coinsNotHalved,
			tags: "@reading @reading:coin-value-rounds-down", strict: true, failed: 1, advisory: true,
			line: "RESULT: FAIL: 0 passed (0 with warnings), 1 failed, 0 skipped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ref := httpapitest.NewServer(t)
			srv := ref
			if tc.rewrite != nil {
				srv = httptest.NewServer(rewriteProfileCoins(t, ref.Config.Handler, tc.rewrite))
				t.Cleanup(srv.Close)
			}
			res, out, sum := runVerdict(t, srv, coinScenario(tc.tags), tc.strict)

			assert.Equal(t, tc.ok, res.OK(), out)
			assert.Equal(t, tc.warned, res.Warned)
			assert.Equal(t, tc.failed, res.Failed)
			assert.Contains(t, out, tc.line)
			assert.Equal(t, tc.strict, sum.Strict)
			assert.Equal(t, tc.warned, sum.Totals.Warned, "summary.json passed_with_warnings")
			assert.Equal(t, tc.failed, sum.Levels.Failures, "summary.json levels.failures")
			require.Len(t, sum.Scenarios, 1)
			sc := sum.Scenarios[0]
			assert.Equal(t, tc.advisory, sc.Advisory)
			if tc.warned == 0 {
				assert.Empty(t, sum.Warnings)
				assert.Empty(t, sc.Warnings)
				assert.NotContains(t, out, "WARNING")
				return
			}
			assert.Equal(t, verdict.StatusPassed, sc.Status)
			require.Len(t, sc.Warnings, 1)
			assert.Equal(t, "coin-value-rounds-down", sc.Warnings[0].Reading)
			assert.NotEmpty(t, sc.Warnings[0].Detail)
			require.Len(t, sum.Warnings, 1, "each reading listed once")
			assert.Equal(t, "coin-value-rounds-down", sum.Warnings[0].Reading)
			assert.Equal(t, []string{"coins.feature: The profile values two coins at one rupiah"}, sum.Warnings[0].Scenarios)
			assert.Equal(t, 1, sum.Levels.Warnings)
			assert.Equal(t, 1, sum.Levels.Readings)
			assert.Contains(t, out, "WARNING reading coin-value-rounds-down: §2.3")
			assert.Equal(t, 1, strings.Count(out, "WARNING reading "), out)
		})
	}
}

// TestAppliedReadingsAreTagged: every reading a scenario applied in the full
// run against the reference is named by a @reading:<id> tag of that
// scenario, so docs/conformance-readings.md, built from the tags, lists
// every scenario that applies a reading; and the reference follows every
// reading, so the run has no warnings.
func TestAppliedReadingsAreTagged(t *testing.T) {
	res := stepstest.FullRun(t).Result
	applied := 0
	for _, sc := range res.Summary.Scenarios {
		for _, id := range sc.Readings {
			applied++
			assert.Contains(t, sc.Tags, "reading:"+id, "%s: %s applies the reading %s: tag it @reading:%s", sc.Feature, sc.Name, id, id)
		}
		assert.Empty(t, sc.Warnings, "%s: %s", sc.Feature, sc.Name)
	}
	assert.Positive(t, applied, "no scenario applied a reading")
	assert.Zero(t, res.Warned)
	assert.Empty(t, res.Summary.Warnings)
}

// TestCucumberNamesWhereEachStepIsDefined: the step definitions pass through
// the grading wrapper, yet cucumber.json names the line that registered each
// one, not the wrapper's.
func TestCucumberNamesWhereEachStepIsDefined(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	dir := t.TempDir()
	_, err := steps.Run(context.Background(), steps.Options{
		BaseURL: srv.URL, Profile: profiles.Reference(srv.URL), Features: stepstest.Features(t, coinScenario("")),
		Format: "progress", Output: io.Discard, ReportDir: dir, RequestTimeout: 5 * time.Second,
	})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "cucumber.json"))
	require.NoError(t, err)
	var features []struct {
		Elements []struct {
			Steps []struct {
				Name  string `json:"name"`
				Match struct {
					Location string `json:"location"`
				} `json:"match"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(data, &features))
	require.Len(t, features, 1)
	require.Len(t, features[0].Elements, 1)
	st := features[0].Elements[0].Steps
	require.Len(t, st, 4)
	for _, s := range st {
		assert.Regexp(t, `^[a-z_]+\.go:[0-9]+$`, s.Match.Location, s.Name)
		assert.NotContains(t, s.Match.Location, "verdict.go", s.Name)
	}
	assert.Regexp(t, `^customers\.go:`, st[3].Match.Location, "the coin value step is defined in customers.go")
}
