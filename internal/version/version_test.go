package version

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecSHA256IsTheDigestOfOpenAPIYAML: the digest printed is the one of
// the file in the repository, so a reader can compare it with sha256sum.
func TestSpecSHA256IsTheDigestOfOpenAPIYAML(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../openapi.yaml")
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	assert.Equal(t, hex.EncodeToString(sum[:]), SpecSHA256())
}

func TestCommit(t *testing.T) {
	t.Parallel()
	settings := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	cases := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "unknown"},
		{"no vcs", settings("-race", "true"), true, "unknown"},
		{"clean", settings("vcs.revision", "abc123", "vcs.time", "2026-11-23T08:00:00Z", "vcs.modified", "false"), true, "abc123 2026-11-23T08:00:00Z"},
		{"modified", settings("vcs.revision", "abc123", "vcs.modified", "true"), true, "abc123 (modified)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, commit(tc.bi, tc.ok))
		})
	}
}

func TestStringNamesEveryPart(t *testing.T) {
	t.Parallel()
	s := String("conformance")
	for _, part := range []string{"conformance", "suite version: " + Suite, "spec sha256:   " + SpecSHA256(), "commit:", runtime.Version()} {
		assert.Contains(t, s, part)
	}
	assert.Len(t, SpecSHA256(), 64)
}

func TestRelease(t *testing.T) {
	t.Parallel()
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/partnercommerce/conformance", Version: "v1.2.0"}}
	devel := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	assert.Equal(t, "v1.3.0", release("v1.3.0", installed, true), "make dist's stamp wins")
	assert.Equal(t, "v1.2.0", release("", installed, true), "go install @v1.2.0")
	assert.Equal(t, "devel", release("", devel, true))
	assert.Equal(t, "devel", release("", nil, false))
}
