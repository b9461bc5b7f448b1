package probe_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/verdict"
)

// races is how many probe runs the race faults and the correct reference
// get in TestProbeCatchesTheFaultsEveryTime: the issue asks for 10 of 10.
// The other faults fail every run the same way at the first wave (nothing
// races in them), so one run says it.
const races = 10

// TestProbeCatchesTheFaultsEveryTime runs the probe with its defaults
// against one server per fault, over HTTP as against any target (the
// reference's race window is its own, runtime.Gosched, never a test's
// hook): ten times against each race fault and the correct reference,
// once against the others. Every run against a fault fails the case named
// with the rule named, and every run against the reference passes.
func TestProbeCatchesTheFaultsEveryTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault reference.Fault
		runs  int
		// rule is the failure each run must report, in the case named.
		caseName, rule string
	}{
		{"", races, "", ""},
		{reference.FaultLostUpdateDebit, races, "from one wallet", "the wallet does not hold what the payments reported leave"},
		{reference.FaultRacyDuplicateCheck, races, "with one partner_trx_id", contract.ErrCreatedTwice.Error()},
		{reference.FaultDuplicateTrxAccepted, 1, "with one partner_trx_id", contract.ErrCreatedTwice.Error()},
		{reference.FaultRetryDebitsAgain, 1, "with one partner_trx_id", "the wallet does not hold what the payments reported leave"},
		{reference.FaultThrottledButProcessed, 1, "with one partner_trx_id", contract.ErrThrottledProcessed.Error()},
		{reference.FaultThrottledButProcessed, 1, "from one wallet", contract.ErrThrottledProcessed.Error()},
	} {
		name := string(tc.fault) + " " + tc.caseName
		if tc.fault == "" {
			name = "the reference"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServer(t, faultsOf(tc.fault)...)
			caught := 0
			for run := range tc.runs {
				res, err := probe.Run(t.Context(), probe.Options{Profile: profiles.Reference(srv.URL)})
				require.NoError(t, err)
				if tc.fault == "" {
					for _, c := range res.Cases {
						assert.Equal(t, verdict.StatusPassed, c.Status, "run %d, seed %d: %s\n%s%s", run+1, res.Seed, c.Name(), c.Failure, c.Reason)
					}
					caught++
					continue
				}
				c := caseNamed(t, res, tc.caseName)
				if c.Status == verdict.StatusFailed && strings.Contains(c.Failure, tc.rule) {
					caught++
					t.Logf("run %d, seed %d: %s", run+1, res.Seed, c.Failure[:strings.IndexByte(c.Failure, ':')])
				} else {
					t.Errorf("run %d, seed %d: %s: %s, not failed with %q\n%s%s", run+1, res.Seed, c.Name(), c.Status, tc.rule, c.Failure, c.Reason)
				}
			}
			t.Logf("%d of %d runs", caught, tc.runs)
		})
	}
}

// faultsOf is the faults of a server: none for "".
func faultsOf(f reference.Fault) []reference.Fault {
	if f == "" {
		return nil
	}
	return []reference.Fault{f}
}

// caseNamed is the case of res whose name holds name.
func caseNamed(tb testing.TB, res probe.Result, name string) probe.CaseResult {
	tb.Helper()
	for _, c := range res.Cases {
		if strings.Contains(c.Case, name) {
			return c
		}
	}
	tb.Fatalf("no case %q among %v", name, res.Cases)
	return probe.CaseResult{}
}
