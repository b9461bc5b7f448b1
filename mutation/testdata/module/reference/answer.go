// Package reference is the domain of the fixture server that the tests of
// package mutation mutate.
package reference

// Answer is what the server answers; a killer checks it.
func Answer() int { return 42 }

// Noted is held but never served: its mutant survives.
var Noted = "unread"

// Ready reports whether the server may start; its mutant never listens.
func Ready() bool { return true }

// Join joins two words; swapping its + does not compile.
func Join(a, b string) string { return a + b }
