package generative_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// probeOnly are the faults only the concurrency probe catches, with why no
// other judge of the run can. Were the probe not a judge of the run, they
// would be its expected misses.
var probeOnly = map[reference.Fault]string{
	reference.FaultLostUpdateDebit: "two debits of one wallet overwrite each other only when they overlap: " +
		"the scenarios and the generated sequences send one request at a time",
	reference.FaultRacyDuplicateCheck: "two payments with one partner_trx_id both succeed only when they overlap: " +
		"the scenarios and the generated sequences send one request at a time",
}

// readingFaults are the faults whose every catching check rests on a
// reading: a normal run warns of them, a strict one fails. They are the
// strict rows of stepstest.FaultScenarios and the generated faults whose
// check rests on a reading.
func readingFaults() map[reference.Fault]bool {
	out := map[reference.Fault]bool{}
	for _, fs := range stepstest.FaultScenarios {
		if fs.Strict {
			out[fs.Fault] = true
		}
	}
	for _, tc := range generatedFaults {
		if tc.reading != "" {
			out[tc.fault] = true
		}
	}
	return out
}

// TestEveryFaultFailsTheWholeRun: against the reference with any one of
// its faults (`reference --list-faults`), the whole conformance run (the
// one `make conformance TARGET=… PROFILE=profiles/reference.yaml` makes:
// scenarios, generated properties, probe, one verdict) FAILs. A fault whose
// checks rest on a reading warns, and fails a strict run. The fault that
// refuses every gateway payment breaks no sentence a client can hold it to:
// its run is INCOMPLETE, the scenarios that needed a gateway payment not
// judged, by that cause. The probe's faults fail it through the probe.
//
// The runs are the shared ones (defaultRun), whose scenarios are narrowed
// to the one that catches the fault: scenarios never share state, so a
// scenario that fails alone fails the whole run too (TestSuiteDetectsFaults
// holds each; TestSuiteMissesGeneratedFaults holds that the whole suite
// misses the generated faults).
func TestEveryFaultFailsTheWholeRun(t *testing.T) {
	sweep.NoRace(t)
	readings := readingFaults()
	for _, f := range reference.AllFaults() {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			run := defaultRun(t, f, false).Whole
			v := run.Verdict()
			switch {
			case f == reference.FaultGatewayPaymentsRefused:
				require.Equal(t, verdict.VerdictIncomplete, v, wholeRun(run))
				assert.Positive(t, run.NotJudged)
				require.Len(t, run.Summary.NotJudgedGroups, 1, wholeRun(run))
				assert.Equal(t, `every gateway payment was refused with 422 "Saldo tidak mencukupi."`, run.Summary.NotJudgedGroups[0].Headline)
				assert.Equal(t, run.NotJudged, run.Summary.NotJudgedGroups[0].Count)
			case probeOnly[f] != "":
				require.True(t, probeRan(run), "the probe judged the run")
				assert.Equal(t, verdict.VerdictFail, v, "%s\n%s", probeOnly[f], wholeRun(run))
			case readings[f] && v != verdict.VerdictFail:
				assert.Equal(t, verdict.VerdictPass, v, wholeRun(run))
				assert.Positive(t, run.Summary.Levels.Warnings, "a reading's fault warns: %s", wholeRun(run))
				strict := defaultRun(t, f, true).Whole
				assert.Equal(t, verdict.VerdictFail, strict.Verdict(), "and fails a strict run: %s", wholeRun(strict))
			default:
				assert.Equal(t, verdict.VerdictFail, v, wholeRun(run))
			}
		})
	}
}

// probeRan reports whether the probe judged the run.
func probeRan(run steps.Result) bool {
	return slices.ContainsFunc(run.Summary.Judges, func(j verdict.JudgeRun) bool {
		return j.Name == verdict.JudgeProbe && j.State == verdict.JudgeRan
	})
}

// wholeRun is a run in a few lines: its judges, and its result line.
func wholeRun(run steps.Result) string {
	var b strings.Builder
	for _, j := range run.Summary.Judges {
		b.WriteString("  " + j.Name + ": " + j.Line() + "\n")
	}
	report.PrintSummary(&b, run.Summary)
	return b.String()
}
