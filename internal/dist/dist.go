// Package dist builds the release artifacts of the project the way
// GoReleaser lays them out, without needing GoReleaser: for each target
// (os/arch) one archive holding the static binaries of conformance,
// loadtest and reference with the files a user starts from (Extras: the
// README, the LICENSE and the example profile every help text points to;
// tar.gz, zip for Windows), named conformance_<version>_<os>_<arch>, and
// conformance_<version>_checksums.txt with the SHA-256 of every archive, as
// sha256sum prints it.
package dist

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Project names the archives, as GoReleaser's project_name.
const Project = "conformance"

// Commands are the binaries of every archive (./cmd/<name>).
var Commands = []string{"conformance", "loadtest", "reference"}

// Extras are the files every archive holds beside the binaries, as paths
// relative to the module's root, kept in the archive under the same path:
// the help and error messages of conformance and loadtest name
// profiles/example.yaml, so it is found where they say.
var Extras = []string{"README.md", "LICENSE", "profiles/example.yaml"}

// Targets are the platforms of a release.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// Target is one platform.
type Target struct{ OS, Arch string }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// ParseTarget reads "os/arch".
func ParseTarget(s string) (Target, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" {
		return Target{}, fmt.Errorf("target %q: want os/arch, as linux/amd64", s)
	}
	return Target{os, arch}, nil
}

// Version is a release version as archives name it: without the leading v
// of a git tag (v1.2.0 is 1.2.0), as GoReleaser's {{.Version}}.
func Version(tag string) string { return strings.TrimPrefix(tag, "v") }

// Binary is the file name of a command on the target.
func (t Target) Binary(cmd string) string {
	if t.OS == "windows" {
		return cmd + ".exe"
	}
	return cmd
}

// ArchiveName is conformance_<version>_<os>_<arch>.tar.gz (.zip on Windows).
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("%s_%s_%s_%s%s", Project, Version(version), t.OS, t.Arch, ext)
}

// ChecksumsName is conformance_<version>_checksums.txt.
func ChecksumsName(version string) string {
	return fmt.Sprintf("%s_%s_checksums.txt", Project, Version(version))
}

// Builder compiles one command for a target into out.
type Builder func(ctx context.Context, cmd string, t Target, out string) error

// GoBuild returns the Builder of a release: a static binary (CGO off),
// paths trimmed, symbols stripped, the version stamped into ldflag (the
// -X name=value of the version variable), built from the module in dir;
// the commit is stamped when dir is a git work tree (-buildvcs=auto, over a
// GOFLAGS that turns it off).
func GoBuild(goCmd, dir, ldflag string) Builder {
	return func(ctx context.Context, cmd string, t Target, out string) error {
		c := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-buildvcs=auto", "-ldflags", "-s -w -X "+ldflag, "-o", out, "./cmd/"+cmd)
		c.Dir = dir
		c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch)
		if msg, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s for %s: %w\n%s", cmd, t, err, msg)
		}
		return nil
	}
}

// Release is what Build made.
type Release struct {
	Archives  []string // paths, in the order of the targets
	Checksums string   // path of the checksums file
}

// Build builds every command for every target into outDir/<os>_<arch>/,
// archives each target with the extra files (paths relative to root, such
// as Extras, archived under the same path), and writes the checksums file.
func Build(ctx context.Context, build Builder, version string, targets []Target, root string, extra []string, outDir string) (Release, error) {
	var rel Release
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return rel, err
	}
	sums := map[string]string{}
	for _, t := range targets {
		dir := filepath.Join(outDir, t.OS+"_"+t.Arch)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return rel, err
		}
		files := make([]member, 0, len(Commands)+len(extra))
		for _, cmd := range Commands {
			out := filepath.Join(dir, t.Binary(cmd))
			if err := build(ctx, cmd, t, out); err != nil {
				return rel, err
			}
			files = append(files, member{name: t.Binary(cmd), path: out})
		}
		for _, e := range extra {
			files = append(files, member{name: filepath.ToSlash(e), path: filepath.Join(root, e)})
		}
		archive := filepath.Join(outDir, ArchiveName(version, t))
		if err := writeArchive(archive, files); err != nil {
			return rel, fmt.Errorf("%s: %w", archive, err)
		}
		sum, err := fileSHA256(archive)
		if err != nil {
			return rel, err
		}
		sums[filepath.Base(archive)] = sum
		rel.Archives = append(rel.Archives, archive)
	}
	rel.Checksums = filepath.Join(outDir, ChecksumsName(version))
	return rel, os.WriteFile(rel.Checksums, []byte(Checksums(sums)), 0o644)
}

// Checksums renders the checksums file: "<sha256>  <name>" a line, sorted
// by name, the format sha256sum -c reads.
func Checksums(sums map[string]string) string {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.String()
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// member is one file of an archive: its name there and where it is read.
type member struct{ name, path string }

// writeArchive writes files into a tar.gz or a zip. Binaries keep their
// executable bit; times are fixed, so that the same binaries give the same
// archive.
func writeArchive(path string, files []member) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(f, files)
	} else {
		err = writeTarGz(f, files)
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// epoch is the modification time of every archived file.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func writeTarGz(w io.Writer, files []member) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, m := range files {
		data, mode, err := readFile(m.path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: m.name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []member) error {
	zw := zip.NewWriter(w)
	for _, m := range files {
		data, mode, err := readFile(m.path)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate, Modified: epoch}
		h.SetMode(os.FileMode(mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// readFile reads a file and the mode to archive it with: 0755 for a
// binary (executable here), 0644 otherwise.
func readFile(p string) ([]byte, int64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, 0, err
	}
	data, err := os.ReadFile(p)
	mode := int64(0o644)
	if fi.Mode()&0o111 != 0 || strings.HasSuffix(p, ".exe") {
		mode = 0o755
	}
	return data, mode, err
}
