package steps_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/repro/reprotest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// TestASuiteFailureReproducesAsPrinted: the reproduction a failed scenario
// prints runs as printed with sh (its variables set as its first line
// says, from the reference profile): against the faulty reference its last
// answer shows the defect, against the correct one it does not. The
// reproduction sends a fresh partner_trx_id on each run, and the requests
// sent before with the same id when the id is the defect. A wallet's
// reproduction computes the check and says DEFECT against a fresh faulty
// reference, and that it saw none against a fresh correct one.
func TestASuiteFailureReproducesAsPrinted(t *testing.T) {
	t.Parallel()
	reprotest.NeedCurl(t)
	for _, tc := range []struct {
		fault reference.Fault
		// defect matches the last answer of the script against the faulty
		// reference, and not against the correct one; "" for a script that
		// says its verdict itself (verdict).
		defect string
	}{
		// The wallet's faults: the script pays and reads the wallet, and
		// computes the check.
		{reference.FaultMixedWalletTakenTwice, ""},
		{reference.FaultMixedWalletCredited, ""},
		{reference.FaultRetryDebitsAgain, ""},
		// Not stale-profile: its profile is stale for a second after a
		// payment, so whether a script shows it is up to the clock.
		{reference.FaultCoinsBeforeBalance, `"balance_used": ?0,`},
		{reference.FaultMessageTypo, `"message": ?"Pembayaran berhasil diproses"`},
		{reference.FaultDuplicateTrxAccepted, `(?s)^HTTP/1.1 20[01] .*"transaction"`},
		{reference.FaultNoTrxIDLimit, `(?s)^HTTP/1.1 20[01] .*"transaction"`},
		{reference.FaultCustomerIDAsString, `"customer": ?\{[^}]*"id": ?"`},
		{reference.FaultErrorsAsText, `(?i)Content-Type: text/plain`},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			scenario := ""
			for _, fs := range stepstest.FaultScenarios {
				if fs.Fault == tc.fault {
					scenario = fs.Scenario
				}
			}
			require.NotEmpty(t, scenario, "no scenario of stepstest.FaultScenarios detects %s", tc.fault)
			faulty := httpapitest.NewServer(t, tc.fault)
			correct := httpapitest.NewServer(t)
			at, err := stepstest.Locate(scenario)
			require.NoError(t, err)
			res := runOpts(t, steps.Options{BaseURL: faulty.URL, Locations: []string{at}, RequestTimeout: 5 * time.Second})
			var script string
			for _, sc := range res.Summary.Scenarios {
				if sc.Name == scenario && sc.Status == verdict.StatusFailed {
					script = reproduction(t, sc.Reason)
				}
			}
			require.NotEmpty(t, script, "the scenario %q did not fail with a reproduction", scenario)
			if tc.defect == "" {
				holdsItsVerdict(t, tc.fault, script, faulty.URL)
				return
			}
			defect := regexp.MustCompile(tc.defect)
			prof := profiles.Reference(faulty.URL)
			for range 2 { // a fresh partner_trx_id on each run: the second run shows the defect as the first
				assert.Regexp(t, defect, reprotest.Run(t, script, prof), "against the faulty reference:\n%s", script)
			}
			again := reprotest.Rebase(t, script, faulty.URL, correct.URL)
			assert.NotRegexp(t, defect, reprotest.Run(t, again, prof), "against the correct reference:\n%s", again)
		})
	}
}

// holdsItsVerdict holds a reproduction that says its verdict (package repro's
// checks) to it: against a fresh faulty reference it says DEFECT, against a
// fresh correct one it says it saw none. It was printed by a run against
// from.
func holdsItsVerdict(t *testing.T, fault reference.Fault, script, from string) {
	t.Helper()
	for _, tc := range []struct {
		faults []reference.Fault
		defect bool
	}{{[]reference.Fault{fault}, true}, {nil, false}} {
		srv := httpapitest.NewServer(t, tc.faults...)
		s := reprotest.Rebase(t, script, from, srv.URL)
		out, defect := reprotest.Verdict(t, s, profiles.Reference(srv.URL))
		assert.Equal(t, tc.defect, defect, "against a fresh reference with the faults %v:\n%s\nit printed:\n%s", tc.faults, s, out)
	}
}

// reproduction is the script of the text of a failure: the lines after
// steps.ReproductionHead, indented by four spaces.
func reproduction(t *testing.T, text string) string {
	t.Helper()
	_, after, ok := strings.Cut(text, steps.ReproductionHead+"\n")
	if !ok {
		t.Fatalf("the failure prints no reproduction:\n%s", text)
	}
	var b strings.Builder
	for _, line := range strings.Split(after, "\n") {
		rest, ok := strings.CutPrefix(line, "    ")
		if !ok {
			break
		}
		b.WriteString(strings.TrimPrefix(rest, "  ") + "\n")
	}
	return b.String()
}

// TestAFailureWritesItsHAR: a failed scenario of a run with a report
// directory writes its requests and answers, in order, as a HAR file in
// its har folder named after the scenario's location, the secrets masked;
// its failure names the file. A passed scenario writes none.
func TestAFailureWritesItsHAR(t *testing.T) {
	t.Parallel()
	faulty := httpapitest.NewServer(t, reference.FaultMixedWalletTakenTwice)
	fs, ok := stepstest.FaultScenarioOf(reference.FaultMixedWalletTakenTwice)
	require.True(t, ok)
	at, err := stepstest.Locate(fs.Scenario)
	require.NoError(t, err)
	passing, err := stepstest.Locate("Coins are spent only when the cashier asks for them")
	require.NoError(t, err)
	dir := t.TempDir()
	res := runOpts(t, steps.Options{BaseURL: faulty.URL, Locations: []string{at, passing}, ReportDir: dir, RequestTimeout: 5 * time.Second})
	file, line, _ := strings.Cut(at, ":")
	path := filepath.Join(dir, steps.HARDir, strings.TrimSuffix(filepath.Base(file), ".feature")+"-"+line+".har")
	var reason string
	for _, sc := range res.Summary.Scenarios {
		if sc.Status == verdict.StatusFailed {
			reason = sc.Reason
		}
	}
	assert.Contains(t, reason, steps.HARHead+" "+path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	files, err := os.ReadDir(filepath.Join(dir, steps.HARDir))
	require.NoError(t, err)
	assert.Len(t, files, 1, "only the failed scenario writes its HAR")
	prof := profiles.Reference(faulty.URL)
	for _, sc := range prof.Secrets() {
		assert.NotContains(t, string(data), sc.Value, "the value of %s is written", sc.Key)
	}
	var har struct {
		Log struct {
			Entries []struct {
				Request struct{ Method, URL string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &har))
	var sent []string
	for _, e := range har.Log.Entries {
		sent = append(sent, e.Request.Method+" "+strings.TrimPrefix(e.Request.URL, faulty.URL))
	}
	assert.Contains(t, sent, "POST /client/v2/payment")
	assert.Equal(t, "GET /client/v2/customer/profile", sent[0], "the wallet read first")
	assert.Equal(t, "GET /client/v2/customer/profile", sent[len(sent)-1], "and last")
}
