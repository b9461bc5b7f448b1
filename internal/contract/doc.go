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
// It also says which answers are not the API's at all, so that no judge
// blames the API for them: a throttled answer (throttle.go: a 429, or a
// 503 with Retry-After) and a gateway's page (gateway.go: HTML, or text
// with a proxy's Server header or a gateway's status; GatewayAnswer, with
// the sentence that says who answered and what to change, and
// MostlyGateway, the share past which a run is incomplete). Those live
// here rather than in internal/transport because the question is the
// document's: what the API answers (JSON, with status and message, one of
// section 7's messages) and what it never does; internal/transport is how
// a tool reaches the target (TLS, headers, waiting), and explains the
// failures of that reaching, below any answer.
//
// The reference server does not import it: the reference is one
// implementation of the document, the contract is the judge (a test keeps
// it so).
package contract
