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
	deps := listDeps(t, module+"/reference", ".")
	assert.Empty(t, forbiddenDeps(deps))
}

// listDeps returns the packages pkgs depend on, even indirectly, and
// checks that go list listed want among them.
func listDeps(t *testing.T, want string, pkgs ...string) []string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", append([]string{"list", "-deps"}, pkgs...)...).Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, want, "go list listed the wrong packages")
	return deps
}

const module = "github.com/partnercommerce/conformance"

// TestStorageImportsNothingOfTheDomain keeps the storage below the domain:
// reference/storage depends, even indirectly, on no package of this module
// but itself.
func TestStorageImportsNothingOfTheDomain(t *testing.T) {
	t.Parallel()
	assert.Empty(t, moduleDeps(listDeps(t, storagePackage, "./storage")))
}

const storagePackage = module + "/reference/storage"

// moduleDeps returns the packages of deps that are this module's, but the
// storage itself.
func moduleDeps(deps []string) []string {
	var ours []string
	for _, d := range deps {
		if d != storagePackage && (d == module || strings.HasPrefix(d, module+"/")) {
			ours = append(ours, d)
		}
	}
	return ours
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
	deps := listDeps(t, module+"/reference/httpapi", ".", "./httpapi", "../cmd/reference")
	assert.NotContains(t, deps, contractPackage)
}

const contractPackage = "github.com/partnercommerce/conformance/internal/contract"

// TestModuleDepsCanFail proves the storage's check can fail.
func TestModuleDepsCanFail(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{module + "/reference"}, moduleDeps([]string{"fmt", storagePackage, module + "/reference", "github.com/stretchr/testify"}))
}

// TestForbiddenDepsCanFail proves the check above can fail.
func TestForbiddenDepsCanFail(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"net/http", "github.com/partnercommerce/conformance/api"},
		forbiddenDeps([]string{"fmt", "net/http", "github.com/partnercommerce/conformance/api", "net"}))
}
