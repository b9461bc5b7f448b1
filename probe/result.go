package probe

import (
	"strings"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/verdict"
)

// A case's status is one of verdict's: not judged when the target kept
// the case from observing its rule (it refused every payment the case
// needed, answered nothing in time, or kept throttling), so the rule is
// neither passed nor failed.

// CaseResult is the outcome of one case of the probe.
type CaseResult struct {
	// Operation is the operationId of openapi.yaml the case sends:
	// createPayment.
	Operation string `json:"operation"`
	// Case names what the case sends at once.
	Case   string `json:"case"`
	Status string `json:"status"`
	// Waves counts the waves that ran and were judged; Planned the waves
	// the options asked for; Payments the payment requests the case sent
	// (a throttled one sent again counts once).
	Waves    int `json:"waves"`
	Planned  int `json:"planned"`
	Payments int `json:"payments"`
	// Failure says which rule a wave broke, and what came back.
	Failure string `json:"failure,omitempty"`
	// Pointer is the JSON pointer of the value that shows the failure in
	// the answer it names (the profile's /data/balance/available, a 409's
	// /message), or "".
	Pointer string `json:"pointer,omitempty"`
	// Sentence is the document's sentence the failed rule rests on.
	Sentence string `json:"sentence,omitempty"`
	// Reproduction is a sh script that sends the failing wave again with
	// curl, and reads the wallet and the status record around it. The
	// secrets are environment variables its first lines name with the
	// profile key each comes from; a partner_trx_id is fresh on each run.
	Reproduction string `json:"reproduction,omitempty"`
	// Reason says why a case was skipped (a profile key it lacks, an
	// interruption) or not judged (what the target did).
	Reason string `json:"reason,omitempty"`
	// Cut says why a case with a verdict ran fewer waves than planned (the
	// time budget, the target's refusals of some waves), or "".
	Cut      string             `json:"cut,omitempty"`
	Warnings []contract.Warning `json:"warnings,omitempty"`
	// Broke is the error of the failure: what the answer broke (its
	// format, contract.CheckEnvelope) or the rule a check of
	// internal/contract found broken; the case's cause is named by it, as
	// every judge names it (verdict.ErrorCause).
	Broke error `json:"-"`
}

// Name is "operation: case".
func (c CaseResult) Name() string { return c.Operation + ": " + c.Case }

// Result is the outcome of a probe run.
type Result struct {
	Seed     uint64       `json:"seed"`
	Requests int64        `json:"requests"`
	Seconds  float64      `json:"seconds"`
	Cases    []CaseResult `json:"cases"`
	// WaveSize is the number of payments a wave sends at once.
	WaveSize int `json:"wave_size"`
	// Interrupted says why the run was interrupted (its context ended), if
	// it was: the cases not run to their end are skipped.
	Interrupted string `json:"interrupted,omitempty"`
	// Stopped says why the run stopped before its end (the target kept
	// throttling), if it did: the cases not run to their end are not
	// judged.
	Stopped string `json:"stopped,omitempty"`
	// Throttling is what the target's rate limit cost the run.
	Throttling throttle.Summary `json:"throttling"`
	// Insecure is the sentence that says the run did not verify the
	// target's certificate (--insecure-skip-verify), or "".
	Insecure string `json:"insecure,omitempty"`
}

// OK reports whether every case passed.
func (r Result) OK() bool {
	for _, c := range r.Cases {
		if c.Status != verdict.StatusPassed {
			return false
		}
	}
	return true
}

// count counts the cases with status.
func (r Result) count(status string) int {
	n := 0
	for _, c := range r.Cases {
		if c.Status == status {
			n++
		}
	}
	return n
}

// Failed counts the cases that failed.
func (r Result) Failed() int { return r.count(verdict.StatusFailed) }

// NotJudged counts the cases the target kept from judging.
func (r Result) NotJudged() int { return r.count(verdict.StatusNotJudged) }

// Skipped counts the cases skipped (the profile lacks what they need, or
// the run was interrupted).
func (r Result) Skipped() int { return r.count(verdict.StatusSkipped) }

// Warned counts the cases that passed with warnings.
func (r Result) Warned() int {
	n := 0
	for _, c := range r.Cases {
		if c.Status == verdict.StatusPassed && len(c.Warnings) > 0 {
			n++
		}
	}
	return n
}

// Verdict is c as a case of the run: its failure with the rule's sentence
// and the reproduction, or why it was skipped (the profile lacks what it
// needs; not run, when the run was interrupted) or not judged.
func (c CaseResult) Verdict(interrupted bool) verdict.Case {
	r := verdict.Case{Name: c.Name(), Judge: verdict.JudgeProbe, Feature: verdict.JudgeProbe, Tags: []string{c.Operation},
		Status: c.Status, Reason: c.Reason, Warnings: c.Warnings}
	switch c.Status {
	case verdict.StatusNotJudged:
		r.Status = verdict.StatusNotJudged
		first, _, _ := strings.Cut(c.Reason, "\n")
		r.Cause = &verdict.Cause{Operation: c.Operation, Check: c.Case, Headline: first}
	case verdict.StatusFailed:
		var b strings.Builder
		b.WriteString(c.Failure)
		if c.Pointer != "" {
			b.WriteString("\nat " + c.Pointer)
		}
		if c.Sentence != "" {
			b.WriteString("\nthe document: " + c.Sentence)
		}
		if c.Reproduction != "" {
			b.WriteString("\nreproduce (sh, once the variables its first lines name are set; it tries the wave up to $TRIES times):\n  " + strings.ReplaceAll(strings.TrimRight(c.Reproduction, "\n"), "\n", "\n  "))
		}
		r.Reason = b.String()
		first, _, _ := strings.Cut(c.Failure, "\n")
		r.Cause = &verdict.Cause{Operation: c.Operation, Check: c.Case, Expected: c.Sentence, Headline: first}
		if cause, ok := verdict.ErrorCause(c.Operation, c.Broke); ok {
			if cause.Field == "" {
				cause.Headline = first // the wave and what its answers were
			}
			r.Cause = &cause
		}
	case verdict.StatusSkipped:
		r.NotRun = interrupted
	}
	return r
}
