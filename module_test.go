package conformance_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestModuleGraphHasNoDevelopmentTools keeps go.mod to what the product needs:
// golangci-lint and its linters live in tools/go.mod, so a program importing
// the steps or loadtest library does not inherit them.
func TestModuleGraphHasNoDevelopmentTools(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "mod", "graph").Output()
	if err != nil {
		t.Fatalf("go mod graph: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, tool := range []string{"golangci-lint", "honnef.co/go/tools", "mvdan.cc/gofumpt"} {
			if strings.Contains(line, tool) {
				t.Errorf("go.mod's graph names a development tool: %s", line)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("go mod graph printed nothing")
	}
}
