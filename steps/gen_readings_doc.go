//go:build ignore

// gen_readings_doc writes docs/conformance-readings.md from the readings
// registry and the feature files (go generate ./steps/).
package main

import (
	"fmt"
	"os"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/steps"
)

func main() {
	doc, err := steps.ReadingsDoc(features.FS, generative.Readings())
	if err == nil {
		err = os.WriteFile("../docs/conformance-readings.md", doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_readings_doc:", err)
		os.Exit(1)
	}
}
