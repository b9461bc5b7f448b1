package conformance_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage: the README's Layout section is the map
// of the house; a package it does not name is a room a newcomer cannot
// find. Every package of go list ./... is named there, at the start of a
// line of its block.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	out, err := exec.CommandContext(t.Context(), "go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/partnercommerce/conformance"
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if rel == "" {
			continue // the module root: spec.go, named as a file
		}
		if !regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(rel) + `/? `).MatchString(layout) {
			t.Errorf("README.md's Layout does not name the package %s", rel)
		}
	}
}
