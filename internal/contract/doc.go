// Package contract is the one oracle the conformance suite (steps/) and the
// load tester (loadtest/) share: what the API document fixes for every
// response (the status and message envelope, section 1), the exact messages
// both check, the coin rate and the amount arithmetic (sections 2.3, 2.7 and
// 8), and the operations with their method, path and documented status codes,
// derived from the embedded OpenAPI document (api.GetSpec) rather than
// written again.
//
// The reference server does not import it: the reference and the suite stay
// independent oracles of the document (a test keeps it so).
package contract
