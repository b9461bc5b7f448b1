// Command dist builds the release artifacts (`make dist`): static binaries
// of conformance, loadtest and reference for Linux, macOS and Windows on
// amd64 and arm64, the version stamped, one archive per platform and a
// SHA-256 checksums file, in GoReleaser's layout. See internal/dist.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/dist"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "release version, as a git tag (v1.2.0); required")
	out := fs.String("out", "dist", "output directory")
	targets := fs.String("targets", "", "comma-separated os/arch list (default: linux, darwin and windows on amd64 and arm64)")
	goCmd := fs.String("go", "go", "the go command")
	if _, err := cli.Parse(fs, args, "dist", "usage: dist --version vX.Y.Z [--out DIR] [--targets os/arch,...]"); err != nil {
		return err
	}
	if *version == "" {
		return fmt.Errorf("--version is required (a git tag, such as v1.2.0)")
	}
	ts := dist.Targets
	if *targets != "" {
		ts = nil
		for _, s := range strings.Split(*targets, ",") {
			t, err := dist.ParseTarget(strings.TrimSpace(s))
			if err != nil {
				return err
			}
			ts = append(ts, t)
		}
	}
	build := dist.GoBuild(*goCmd, ".", "github.com/partnercommerce/conformance/internal/version.Stamped="+*version)
	rel, err := dist.Build(ctx, build, *version, ts, ".", dist.Extras, *out)
	if err != nil {
		return err
	}
	for _, a := range rel.Archives {
		fmt.Fprintln(stdout, a)
	}
	fmt.Fprintln(stdout, rel.Checksums)
	return nil
}
