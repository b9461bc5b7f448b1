package mutation

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A mutant's verdict is kept with two hashes (SHA-256, in hexadecimal):
// its file's, and the killer's. A later run judges it again only when one
// of them changed.
//
// The killer's hash is over everything but the mutated files that decides
// a verdict: the killer commands and the servers' extra flags; the files a
// command names under the module (its profile); the Go and embedded files
// of the module's packages the killers are built from (bin/NAME is built
// from ./cmd/NAME; another command is hashed by its content) and of the
// server's, ./cmd/reference, without the mutated files, each of which
// has its own hash; go.mod, go.sum and the Go version. The conformance
// binary embeds a reference of its own, so its packages hold the mutated
// files: leaving them out is what keeps a change of one file from
// judging every mutant again.

// FileHashes is the hash of each file (slash paths from root).
func FileHashes(root string, files []string) (map[string]string, error) {
	out := make(map[string]string, len(files))
	for _, f := range files {
		h := sha256.New()
		if err := hashFile(h, filepath.Join(root, filepath.FromSlash(f))); err != nil {
			return nil, err
		}
		out[f] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// KillerHash is the killer's hash for cfg, mutated being the files that
// are hashed each on their own; it returns the module's files it read too
// (slash paths from root).
func KillerHash(ctx context.Context, cfg Config, mutated []string) (string, []string, error) {
	var read []string
	h := sha256.New()
	part := func(kind, s string) { fmt.Fprintf(h, "%s\x00%s\x00", kind, s) }
	pkgs := []string{serverPackage}
	for _, k := range cfg.Killers {
		part("killer", k.String())
		if pkg, ok := killerPackage(cfg.Root, k); ok {
			pkgs = append(pkgs, pkg)
		} else if err := hashCommand(h, cfg.Root, k.Command[0]); err != nil {
			return "", nil, fmt.Errorf("killer %s: %w", k.Name, err)
		}
		for _, f := range namedFiles(cfg.Root, k.Command[1:]) {
			part("named", f)
			if err := hashFile(h, filepath.Join(cfg.Root, f)); err != nil {
				return "", nil, err
			}
			read = append(read, f)
		}
	}
	for _, a := range cfg.ServerArgs {
		part("server-arg", a)
	}
	files, err := packageFiles(ctx, cfg.Root, cfg.Go, pkgs)
	if err != nil {
		return "", nil, err
	}
	files = append(files, "go.mod", "go.sum")
	for _, f := range files {
		if slices.Contains(mutated, f) {
			continue
		}
		part("file", f)
		err := hashFile(h, filepath.Join(cfg.Root, filepath.FromSlash(f)))
		if err != nil && (!errors.Is(err, os.ErrNotExist) || f != "go.sum") {
			return "", nil, err
		}
		read = append(read, f)
	}
	version, err := exec.CommandContext(ctx, cfg.Go, "env", "GOVERSION").Output() //nolint:gosec // the go command
	if err != nil {
		return "", nil, fmt.Errorf("go env GOVERSION: %w", err)
	}
	part("go", strings.TrimSpace(string(version)))
	return hex.EncodeToString(h.Sum(nil)), read, nil
}

// serverPackage is the main package of the server that is mutated.
const serverPackage = "./cmd/reference"

// killerPackage is the main package a killer's command is built from:
// ./cmd/NAME for bin/NAME, when the module has it.
func killerPackage(root string, k Killer) (string, bool) {
	name, ok := strings.CutPrefix(filepath.ToSlash(k.Command[0]), "bin/")
	if !ok || strings.Contains(name, "/") {
		return "", false
	}
	if st, err := os.Stat(filepath.Join(root, "cmd", name)); err != nil || !st.IsDir() {
		return "", false
	}
	return "./cmd/" + name, true
}

// hashCommand hashes the content of a command that is not built from the
// module: a path from root, or a name on the PATH.
func hashCommand(h hash.Hash, root, command string) error {
	p := command
	if !filepath.IsAbs(p) && strings.ContainsRune(p, filepath.Separator) {
		p = filepath.Join(root, p)
	} else if !filepath.IsAbs(p) {
		found, err := exec.LookPath(p)
		if err != nil {
			return err
		}
		p = found
	}
	fmt.Fprintf(h, "command\x00%s\x00", command)
	return hashFile(h, p)
}

// namedFiles are the arguments (or the values of --flag=value) that name
// a regular file under root, as slash paths from root.
func namedFiles(root string, args []string) []string {
	var out []string
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if a == "" || filepath.IsAbs(a) || strings.Contains(a, "{") {
			continue
		}
		if st, err := os.Stat(filepath.Join(root, a)); err == nil && st.Mode().IsRegular() {
			out = append(out, path.Clean(filepath.ToSlash(a)))
		}
	}
	return out
}

// packageFiles lists the Go and embedded files of the module's packages
// that pkgs are built from (go list -deps), as sorted slash paths from
// root.
func packageFiles(ctx context.Context, root, goCmd string, pkgs []string) ([]string, error) {
	args := append([]string{"list", "-deps", "-json=Dir,GoFiles,CgoFiles,EmbedFiles,Module"}, pkgs...)
	cmd := exec.CommandContext(ctx, goCmd, args...) //nolint:gosec // the go command and our own arguments
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w: %s", strings.Join(pkgs, " "), err, strings.TrimSpace(stderr.String()))
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Dir                           string
			GoFiles, CgoFiles, EmbedFiles []string
			Module                        *struct{ Main bool }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		if p.Module == nil || !p.Module.Main {
			continue // the standard library, or a module go.sum pins
		}
		rel, err := filepath.Rel(absRoot, p.Dir)
		if err != nil {
			return nil, err
		}
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles, p.EmbedFiles) {
			files = append(files, path.Join(filepath.ToSlash(rel), f))
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

func hashFile(h hash.Hash, name string) error {
	f, err := os.Open(name) //nolint:gosec // a file of the module, or a killer command
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	n, err := io.Copy(h, f)
	fmt.Fprintf(h, "\x00%d\x00", n)
	return err
}
