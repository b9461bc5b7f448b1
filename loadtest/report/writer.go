package report

import (
	"io"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/verdict"
)

// Writer writes one form of a run's report, as vegeta's lib writes each
// of its reports through a Reporter: WriteArtifacts hands each its file of
// the run's directory, cmd/loadtest the console (Text) or --junit's file
// (JUnit).
type Writer func(io.Writer) error

// Text is the human summary of rep (report.txt, and the console).
func Text(rep *Report) Writer { return rep.writeText }

// JSON is rep as report.json.
func JSON(rep *Report) Writer { return func(w io.Writer) error { return record.WriteJSON(w, rep) } }

// HTML is the page of run and its report rep (report.html).
func HTML(run *record.Run, rep *Report) Writer {
	return func(w io.Writer) error { return writeHTML(w, run, rep) }
}

// JUnit is rep as JUnit XML (--junit).
func JUnit(rep *Report) Writer { return rep.writeJUnit }

// Plot is vegeta's latency plot of run's results (plot.html).
func Plot(run *record.Run) Writer { return func(w io.Writer) error { return writePlot(w, run) } }

// Violations is every id of reconciliation r's verdict, a JSON line each
// (violations.jsonl).
func Violations(r *verdict.Reconciliation) Writer {
	return func(w io.Writer) error { return writeViolations(w, r) }
}
