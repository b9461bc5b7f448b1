// Package generative is the generated mode of the conformance tool: it
// derives requests from openapi.yaml instead of reading them from features/,
// sends them to a target, and checks every answer against the contract and
// the API document's business rules.
//
// Two kinds of properties run, each through pgregory.net/rapid (generation,
// shrinking and the state machine):
//
//   - schema properties, two per operation: requests that are valid by the
//     schema with varied values, and requests that break the schema in
//     exactly one place. A failure prints the smallest failing request as a
//     curl line with the secrets masked.
//   - one stateful property: random sequences of provisioning, profile
//     reads, catalog pages, payments and status lookups, checked against a
//     model of what the document guarantees (wallet arithmetic, one success
//     per partner_trx_id, status records that agree with their creation,
//     nothing crossing partners). A failure prints the shortest failing
//     sequence as a Gherkin scenario with its seed.
//
// Checks that follow from the document's words fail a property; checks that
// rest on a reading become warnings (see Readings), as in the suite.
//
// The mode uses only what a profile gives: it provisions its own cashier
// accounts, pays from the profile's funded customer only while the wallet
// stays above the profile's min_balance and min_coins, makes its mixed
// payments (a wallet part and a gateway remainder) from the split-payment
// and mixed-payment customers, and never reuses a partner_trx_id of anyone
// else.
package generative
