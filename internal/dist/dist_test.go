package dist_test

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/dist"
)

func TestNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "conformance_1.2.0_linux_amd64.tar.gz", dist.ArchiveName("v1.2.0", dist.Target{OS: "linux", Arch: "amd64"}))
	assert.Equal(t, "conformance_1.2.0_windows_arm64.zip", dist.ArchiveName("v1.2.0", dist.Target{OS: "windows", Arch: "arm64"}))
	assert.Equal(t, "conformance_1.2.0_checksums.txt", dist.ChecksumsName("v1.2.0"))
	assert.Equal(t, "loadtest.exe", dist.Target{OS: "windows", Arch: "amd64"}.Binary("loadtest"))
	assert.Len(t, dist.Targets, 6)
	_, err := dist.ParseTarget("linux")
	assert.Error(t, err)
}

// TestBuild builds with a stand-in compiler (the real one is `make dist`):
// one archive per target with the three binaries and the extra files under
// their own paths (profiles/example.yaml stays in profiles/, where the help
// texts point), and a checksums file sha256sum -c accepts.
func TestBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# read me\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "profiles"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "profiles", "example.yaml"), []byte("base_url: x\n"), 0o644))
	fake := func(_ context.Context, cmd string, tg dist.Target, out string) error {
		return os.WriteFile(out, []byte("binary "+cmd+" for "+tg.String()), 0o755)
	}
	targets := []dist.Target{{OS: "linux", Arch: "arm64"}, {OS: "windows", Arch: "amd64"}}
	out := filepath.Join(dir, "dist")
	rel, err := dist.Build(context.Background(), fake, "v0.9.0", targets, dir, []string{"README.md", "profiles/example.yaml"}, out)
	require.NoError(t, err)
	require.Len(t, rel.Archives, 2)

	tarFiles := readTarGz(t, rel.Archives[0])
	assert.Equal(t, map[string]string{
		"conformance": "binary conformance for linux/arm64", "loadtest": "binary loadtest for linux/arm64",
		"reference": "binary reference for linux/arm64", "README.md": "# read me\n",
		"profiles/example.yaml": "base_url: x\n",
	}, tarFiles)
	zipFiles := readZip(t, rel.Archives[1])
	assert.ElementsMatch(t, []string{"conformance.exe", "loadtest.exe", "reference.exe", "README.md", "profiles/example.yaml"}, zipFiles)

	sums, err := os.ReadFile(rel.Checksums)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(sums)), "\n")
	require.Len(t, lines, 2)
	for i, name := range []string{"conformance_0.9.0_linux_arm64.tar.gz", "conformance_0.9.0_windows_amd64.zip"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		assert.Equal(t, hex.EncodeToString(sum[:])+"  "+name, lines[i])
	}
}

// TestExtrasAreTheFilesAUserStartsFrom: every archive of a release holds
// the README, the LICENSE and the example profile that every help and
// error message points to, and each is a file of the module.
func TestExtrasAreTheFilesAUserStartsFrom(t *testing.T) {
	t.Parallel()
	assert.ElementsMatch(t, []string{"README.md", "LICENSE", "profiles/example.yaml"}, dist.Extras)
	for _, e := range dist.Extras {
		fi, err := os.Stat(filepath.Join("..", "..", e))
		if assert.NoError(t, err, "the release's extra file %s", e) {
			assert.True(t, fi.Mode().IsRegular(), e)
			assert.Positive(t, fi.Size(), e)
		}
	}
}

func readTarGz(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		files[h.Name] = string(data)
		if !strings.Contains(h.Name, ".") {
			assert.Equal(t, int64(0o755), h.Mode, "%s is executable", h.Name)
		}
	}
	return files
}

func readZip(t *testing.T, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	require.NoError(t, err)
	defer func() { _ = zr.Close() }()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}
