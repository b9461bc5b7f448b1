// Package httpapi is the HTTP glue of the reference server: routing,
// authentication before parsing, the body limit, the generated strict
// server's handlers, the error writer and the listeners. Each handler maps a
// request onto one call of package reference's Store; no rule of the API
// document lives here, only the HTTP-level answers (no route, wrong method,
// body too large, malformed request) and the wire faults (faults.go).
package httpapi
