// Package httpapi is the fixture's HTTP glue.
package httpapi

// Slow is how many seconds the server waits before it answers; its mutant
// makes a killer wait past its bound.
const Slow = 0
