package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/steps"
)

// runDocs renders the feature files as the living documentation page,
// report.html in --out, without running anything.
func runDocs(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory that receives report.html (required)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: conformance docs --out DIR\n\nRenders the feature files as one HTML page (the living documentation), without running anything.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		return exitUsage
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	var page bytes.Buffer
	if err := steps.WriteHTMLReport(&page, features.FS, nil, nil); err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitFail
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitUsage
	}
	path := filepath.Join(*out, steps.FileHTMLReport)
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", path, page.Len())
	return exitPass
}
