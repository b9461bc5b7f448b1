// Package version says which build of the project a binary is: the version
// of the conformance suite, the SHA-256 of the embedded openapi.yaml, the
// commit it was built from and the Go version. The three commands print it
// with --version.
package version

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/partnercommerce/conformance"
)

// Suite is the version of the scenarios and their step definitions.
const Suite = "1.0.0"

// Stamped is the release version `make dist` stamps into the binaries
// (-ldflags "-X github.com/partnercommerce/conformance/internal/version.Stamped=v1.2.0").
var Stamped = ""

// Release is the version the binary was released as: the one make dist
// stamped, or the module version go install put in the build information
// (go install .../cmd/conformance@v1.2.0), or "devel" for a build from a
// work tree.
func Release() string {
	bi, ok := debug.ReadBuildInfo()
	return release(Stamped, bi, ok)
}

func release(stamped string, bi *debug.BuildInfo, ok bool) string {
	switch {
	case stamped != "":
		return stamped
	case ok && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return bi.Main.Version
	}
	return "devel"
}

// SpecSHA256 is the hex SHA-256 of openapi.yaml, as sha256sum prints it.
func SpecSHA256() string {
	sum := sha256.Sum256(conformance.OpenAPI)
	return hex.EncodeToString(sum[:])
}

// Commit is the VCS revision the binary was built from, with "(modified)"
// when the work tree had changes, or "unknown" (go run and go test builds
// carry no VCS information).
func Commit() string {
	return commit(debug.ReadBuildInfo())
}

func commit(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "unknown"
	}
	var rev, modified, at string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		case "vcs.time":
			at = " " + s.Value
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev + at + modified
}

// String is what --version prints for the program name.
func String(program string) string {
	return fmt.Sprintf("%s %s (Partner Commerce API v2)\nsuite version: %s\nspec sha256:   %s\ncommit:        %s\ngo:            %s %s/%s\n",
		program, Release(), Suite, SpecSHA256(), Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
