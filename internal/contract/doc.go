// Package contract is the API document written as code, once: the law every
// judge of the project grades a server by. The hand-written suite (steps/),
// the generated mode (generative/) and the load tester (loadtest/) all call
// it; none writes a rule of the document again (law_test.go fails naming the
// file and line that does).
//
// It holds the operations with their method, path and documented status
// codes, and the rows of section 7 with their messages, read once from the
// embedded OpenAPI document (Spec, Operations, MustRows); the exact messages
// (messages.go); the status and message envelope (section 1); money: the
// coin rate and the amount arithmetic (sections 2.3, 2.7 and 8); the
// destination number format and the one table of operator prefixes
// (msisdn.go); the sub categories (section 4.1); the readings registry
// (Reading, Warning, readings.go), from which docs/conformance-readings.md
// is generated; and the response validator (validator.go), whose
// violations name the JSON pointer, the rule and the section of each
// departure (violation.go).
//
// The reference server does not import it: the reference is one
// implementation of the document, the contract is the judge (a test keeps
// it so).
package contract
