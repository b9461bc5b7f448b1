package verdict_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/partnercommerce/conformance/verdict"
)

// TestVerdictAndExitCodeAgree: the verdict and the exit code are read off
// the same counts and stop, so that summary.json, the RESULT line and the
// process's exit code never disagree; a rule not judged is never a pass.
func TestVerdictAndExitCodeAgree(t *testing.T) {
	t.Parallel()
	gateway := &verdict.Stop{Cause: verdict.StopGateway, Reason: "a gateway answered"}
	cases := []struct {
		name      string
		counts    verdict.Counts
		stop      *verdict.Stop
		endpoints bool
		verdict   string
		code      int
	}{
		{"all passed", verdict.Counts{Passed: 3}, nil, false, verdict.VerdictPass, verdict.ExitPass},
		{"warnings pass", verdict.Counts{Passed: 3, Warned: 1}, nil, false, verdict.VerdictPass, verdict.ExitPass},
		{"a failure", verdict.Counts{Passed: 2, Failed: 1}, nil, false, verdict.VerdictFail, verdict.ExitFail},
		{"a failure wins over not judged", verdict.Counts{Failed: 1, NotJudged: 2}, nil, false, verdict.VerdictFail, verdict.ExitFail},
		{"a rule not judged", verdict.Counts{Passed: 2, NotJudged: 1}, nil, false, verdict.VerdictIncomplete, verdict.ExitIncomplete},
		{"an endpoint stopped answering", verdict.Counts{Passed: 2}, nil, true, verdict.VerdictIncomplete, verdict.ExitIncomplete},
		{"an endpoint stopped, and a failure", verdict.Counts{Failed: 1}, nil, true, verdict.VerdictIncomplete + " (with failures)", verdict.ExitFail},
		{"a gateway's pages", verdict.Counts{Passed: 2}, gateway, false, verdict.VerdictIncomplete, verdict.ExitIncomplete},
		{"the target stopped answering", verdict.Counts{Passed: 2}, &verdict.Stop{Cause: verdict.StopTarget}, false, verdict.VerdictStopped, verdict.ExitIncomplete},
		{"interrupted", verdict.Counts{Passed: 2}, &verdict.Stop{Cause: verdict.StopInterrupted}, false, verdict.VerdictInterrupted, verdict.ExitInterrupted},
		{"a skip the profile causes", verdict.Counts{Passed: 2, Skipped: 1}, nil, false, verdict.VerdictPass, verdict.ExitPass},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.verdict, verdict.Of(tc.counts, tc.stop, tc.endpoints))
			assert.Equal(t, tc.code, verdict.ExitCode(tc.counts, tc.stop, tc.endpoints))
		})
	}
}
