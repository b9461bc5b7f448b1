package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/verdict"
)

// Capability says whether the profile unlocks a capability, and counts
// the scenarios that need it.
type Capability struct {
	Available bool           `json:"available"`
	Missing   []string       `json:"missing,omitempty"`
	Counts    verdict.Counts `json:"scenarios"`
}

// OperationCoverage lists the status codes openapi.yaml documents for an
// operation (default excluded) and those the run received.
type OperationCoverage struct {
	Documented []int `json:"documented"`
	Exercised  []int `json:"exercised"`
}

// Coverage is what the run exercised of the contract.
type Coverage struct {
	Operations map[string]OperationCoverage `json:"operations"`
	// Messages are the exact messages (and prefixes) a scenario asserted.
	Messages []string `json:"messages_asserted"`
}

// Summary is what a run found, as summary.json holds it: the writers
// read it and nothing else of the run.
type Summary struct {
	SuiteVersion string         `json:"suite_version"`
	SpecSHA256   string         `json:"spec_sha256"`
	Target       string         `json:"target"`
	StartedAt    time.Time      `json:"started_at"`
	Seconds      float64        `json:"seconds"`
	Totals       verdict.Counts `json:"totals"`
	// FailureGroups are the failed scenarios grouped by cause, the
	// largest group first (GroupFailures).
	FailureGroups []FailureGroup `json:"failure_groups"`
	// NotJudgedGroups are the scenarios not judged grouped by what the
	// target refused, the largest group first (GroupNotJudged).
	NotJudgedGroups []FailureGroup `json:"not_judged_groups"`
	// Judges are the judges the run asked (or was narrowed not to ask),
	// each with its budget and what it ran, in the order of the report.
	Judges       []verdict.JudgeRun        `json:"judges"`
	Areas        map[string]verdict.Counts `json:"areas"`
	Capabilities map[string]Capability     `json:"capabilities"`
	Coverage     Coverage                  `json:"coverage"`
	// Strict is set when warnings counted as failures.
	Strict bool `json:"strict"`
	// Levels counts the findings of the run by level.
	Levels Levels `json:"levels"`
	// Warnings lists each reading not followed once, with its scenarios.
	Warnings  []ReadingWarnings `json:"warnings"`
	Scenarios []verdict.Case    `json:"scenarios"`
	// Section7 is the error tables of section 7, row by row, as exercised.
	Section7 []MatrixRow `json:"section7"`
	// Stopped is set when the run ended before its scenarios did: the
	// target stopped answering, or the run was interrupted.
	Stopped *verdict.Stop `json:"stopped,omitempty"`
	// StoppedEndpoints are the endpoints the target stopped answering while
	// it answered the others: the run went on without them.
	StoppedEndpoints []EndpointStop `json:"stopped_endpoints,omitempty"`
	// Throttling is what the target's rate limit cost the run: the
	// requests throttled and sent again, the time the run held off.
	Throttling throttle.Summary `json:"throttling"`
	// Insecure is set when the run did not verify the target's certificate
	// (--insecure-skip-verify): the sentence that says so.
	Insecure string `json:"insecure,omitempty"`
}

// EndpointStop is an endpoint the target stopped answering while it still
// answered the others (summary.json's "stopped_endpoints"): the run stopped
// sending it, and the scenarios that needed it were not run, or not run to
// their end (skipped, never failed).
type EndpointStop struct {
	// Endpoint is the method and path: "POST /client/v2/payment".
	Endpoint string `json:"endpoint"`
	// Reason is one sentence: what happened.
	Reason string `json:"reason"`
	// NotRun counts the scenarios not run, or not run to their end, because of it.
	NotRun int `json:"not_run"`
	// LastTransportError is the failure of its last request that got no answer.
	LastTransportError string `json:"last_transport_error,omitempty"`
}

// Banner is the line the console and the page give the endpoint.
func (e EndpointStop) Banner() string {
	return fmt.Sprintf("the target stopped answering %s: %s; %d scenarios not run (none counted as failed)", e.Endpoint, e.Reason, e.NotRun)
}

// EndpointBanners joins the banners of eps in one line.
func EndpointBanners(eps []EndpointStop) string {
	banners := make([]string, 0, len(eps))
	for _, e := range eps {
		banners = append(banners, e.Banner())
	}
	return strings.Join(banners, "; ")
}

// Levels counts the findings of a run by level: failed scenarios (a
// document check failed, or, in a strict run, any check), and warnings (a
// reading a server did not follow).
type Levels struct {
	Failures int `json:"failures"`
	Warnings int `json:"warnings"`
	// Readings counts the distinct readings of the warnings.
	Readings int `json:"readings_not_followed"`
}

// Verdict is the run's one verdict (verdict.Of): PASS, FAIL, INCOMPLETE,
// STOPPED or INTERRUPTED.
func (s Summary) Verdict() string {
	return verdict.Of(s.Totals, s.Stopped, len(s.StoppedEndpoints) > 0)
}

// ExitCode is the exit code of the run (verdict.ExitCode).
func (s Summary) ExitCode() int {
	return verdict.ExitCode(s.Totals, s.Stopped, len(s.StoppedEndpoints) > 0)
}

// WriteSummary writes summary.json: the run's verdict and exit code
// first, then the summary, so that a CI step reads the verdict of the
// file without knowing how it is made.
func WriteSummary(w io.Writer, s Summary) error {
	data, err := json.MarshalIndent(struct {
		Verdict  string `json:"verdict"`
		ExitCode int    `json:"exit_code"`
		Summary
	}{s.Verdict(), s.ExitCode(), s}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// ReadingWarnings is a reading that servers did not follow in a run, with
// the scenarios where it happened.
type ReadingWarnings struct {
	Reading   string   `json:"reading"`
	Sentence  string   `json:"sentence"`
	Scenarios []string `json:"scenarios"`
}

// WarningsByReading lists each reading not followed once, in the order of
// the first scenario that warned of it.
func WarningsByReading(results []verdict.Case) []ReadingWarnings {
	var out []ReadingWarnings
	index := map[string]int{}
	for _, r := range results {
		for _, w := range r.Warnings {
			i, ok := index[w.Reading]
			if !ok {
				i = len(out)
				index[w.Reading] = i
				out = append(out, ReadingWarnings{Reading: w.Reading, Sentence: w.Sentence})
			}
			name := r.Feature + ": " + r.Name
			if !slices.Contains(out[i].Scenarios, name) {
				out[i].Scenarios = append(out[i].Scenarios, name)
			}
		}
	}
	return out
}
