// Package report writes what a run of the conformance suite found, from the
// run's result alone: the console (pretty and progress) and its closing
// summary, JUnit XML, cucumber JSON, summary.json, rerun.txt, the HTML page
// with the section 7 matrix, and the pages made from the feature files
// without a run (the living documentation, docs/conformance-readings.md).
// Package steps runs the scenarios and produces the Summary these functions
// read; nothing here runs a scenario.
package report
