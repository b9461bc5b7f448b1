// Package conformance holds the contract of the Partner Commerce API v2,
// openapi.yaml, byte for byte; the packages below it generate code from it,
// serve it, test servers against it and load them.
package conformance

import _ "embed"

// OpenAPI is openapi.yaml as committed.
//
//go:embed openapi.yaml
var OpenAPI []byte
