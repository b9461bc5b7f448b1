// Package features holds the Gherkin feature files of the conformance suite,
// one per area of the API document. They are the living documentation of the
// contract and are embedded so that binaries carry them.
package features

import "embed"

// FS holds every feature file of the suite.
//
//go:embed *.feature
var FS embed.FS
