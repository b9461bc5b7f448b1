// Package reference is the domain of the reference server of the Partner
// Commerce API v2: every rule of the API document and of
// docs/reference-choices.md, and the state they govern, in memory.
//
// The data set (dataset.go) builds an immutable catalog (catalog.go); the
// Store (store.go) holds the accounts and their wallets (accounts.go,
// wallet.go, auth.go) and the transactions (payments.go, transitions.go)
// under one mutex. The rules read their limits and switches from a policy
// fixed at construction (policy.go), which the test-only faults bend
// (faults.go). Domain errors carry the contract's messages (errors.go).
//
// With a state directory (WithState) every change is also appended to a
// journal as a record (records.go) and fsynced before the request that
// made it returns, many requests sharing one fsync; a store built over the
// same directory replays it (state.go). The journal, its recovery and the
// directory are package reference/storage, which knows nothing of the
// records' meaning.
//
// The package knows nothing of HTTP: it imports neither net/http nor the
// generated api package (TestDomainImportsNoHTTP keeps it so). The HTTP glue
// is package reference/httpapi.
package reference
