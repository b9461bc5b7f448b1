// Package reference is the in-memory reference server of the Partner Commerce
// API v2.
//
// The domain (dataset.go, catalog.go, accounts.go, wallet.go, payments.go,
// transitions.go, store.go, errors.go) holds every rule of the API document
// and of docs/reference-choices.md and knows nothing of HTTP. The HTTP glue
// (server.go, auth.go, handlers.go, errors_http.go) maps requests onto one
// domain call each, through the strict server generated in package api.
package reference
