//go:build ignore

// gen_readings_doc writes docs/conformance-readings.md from the readings
// registry (readings.go) and the feature files (go generate
// ./internal/contract/).
package main

import (
	"fmt"
	"os"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/steps/report"
)

func main() {
	fts, err := gherkin.Load(features.FS)
	if err == nil {
		err = os.WriteFile("../../docs/conformance-readings.md", report.ReadingsDoc(fts), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_readings_doc:", err)
		os.Exit(1)
	}
}
