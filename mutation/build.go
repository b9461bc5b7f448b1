package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Builder builds the reference server with one file replaced by its
// mutant, without copying the tree: go build -overlay maps the file's path
// to the mutated copy, and the build cache keeps every package the change
// does not reach.
type Builder struct {
	Root    string // the module's directory
	Work    string // scratch directory for mutated files and binaries
	Go      string // the go command
	Package string // the main package to build, ./cmd/reference
}

// NotViableError is a mutant that does not compile.
type NotViableError struct {
	Output string // the compiler's first error
}

func (e *NotViableError) Error() string { return "does not build: " + e.Output }

// Build builds the reference with m applied (nil: as it is) and returns the
// binary's path; a mutant that does not compile is a *NotViableError.
func (b *Builder) Build(ctx context.Context, m *Mutant) (string, error) {
	name := "reference"
	args := []string{"build", "-buildvcs=false"}
	if m != nil {
		name = "mutant-" + m.ID()
		overlay, err := b.overlay(m)
		if err != nil {
			return "", err
		}
		args = append(args, "-overlay", overlay)
	}
	bin := filepath.Join(b.Work, "bin", name)
	args = append(args, "-o", bin, b.Package)
	cmd := exec.CommandContext(ctx, b.Go, args...) //nolint:gosec // the go command and our own arguments
	cmd.Dir = b.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if m == nil {
			return "", fmt.Errorf("building the reference: %w\n%s", err, out.String())
		}
		return "", &NotViableError{Output: firstCompileError(out.String())}
	}
	return bin, nil
}

// overlay writes m's file and the overlay that maps the original to it.
func (b *Builder) overlay(m *Mutant) (string, error) {
	orig := filepath.Join(b.Root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(orig) //nolint:gosec // a source file of the module
	if err != nil {
		return "", err
	}
	dir := filepath.Join(b.Work, "overlay", m.ID())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return "", err
	}
	mutated := filepath.Join(dir, filepath.Base(orig))
	if err := os.WriteFile(mutated, m.Apply(src), 0o600); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(orig)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o600)
}

// firstCompileError is the first line of the go command's output that
// names a position, without the directory before the file's name.
func firstCompileError(out string) string {
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if j := strings.Index(line, ".go:"); j >= 0 {
			if i := strings.LastIndex(line[:j], "/"); i >= 0 {
				line = line[i+1:]
			}
		}
		return line
	}
	return strings.TrimSpace(out)
}
