// Package verdict holds the words of a conformance run, below every judge
// (the scenarios of package steps, the generated properties of package
// generative, the concurrency probe of package probe) and every writer of
// its reports: a case and its status, the cause it failed or was not judged
// on, what a judge ran (JudgeRun), why a run stopped (Stop), and the run's
// one verdict with its exit code.
//
// A judge returns its cases as Cases, says "not judged" with
// StatusNotJudged and stops with a Stop: nothing translates one judge's
// results into another's. The law the cases are judged by is
// internal/contract's; this package only names the outcomes.
package verdict
