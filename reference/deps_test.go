package reference

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDomainImportsNoHTTP keeps the wall between rules and HTTP: the domain
// package depends, even indirectly, on neither net/http nor the generated
// api package (the HTTP glue lives in reference/httpapi).
func TestDomainImportsNoHTTP(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/partnercommerce/conformance/reference", "go list listed the wrong package")
	assert.Empty(t, forbiddenDeps(deps))
}

// forbiddenDeps returns the packages of deps the domain must not depend on.
func forbiddenDeps(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if strings.HasPrefix(d, "net/http") || d == "github.com/partnercommerce/conformance/api" ||
			strings.HasPrefix(d, "github.com/partnercommerce/conformance/reference/httpapi") {
			bad = append(bad, d)
		}
	}
	return bad
}

// TestReferenceImportsNoContract keeps the reference one implementation
// among others: neither the domain, nor its HTTP glue, nor its command
// depends on internal/contract, the judge.
func TestReferenceImportsNoContract(t *testing.T) {
	t.Parallel()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", ".", "./httpapi", "../cmd/reference").Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/partnercommerce/conformance/reference/httpapi", "go list listed the wrong packages")
	assert.NotContains(t, deps, contractPackage)
}

const contractPackage = "github.com/partnercommerce/conformance/internal/contract"

// TestForbiddenDepsCanFail proves the check above can fail.
func TestForbiddenDepsCanFail(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"net/http", "github.com/partnercommerce/conformance/api"},
		forbiddenDeps([]string{"fmt", "net/http", "github.com/partnercommerce/conformance/api", "net"}))
}
