package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/partnercommerce/conformance/features"
	"github.com/partnercommerce/conformance/internal/atomicfile"
	"github.com/partnercommerce/conformance/internal/cli"
	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/steps/report"
)

const docsUsage = `usage: conformance docs --out DIR [--summary FILE]

Renders the feature files as the living documentation a partner reads
(DIR/` + report.FileLivingDocs + `), without running anything: the document's
areas and endpoints, each rule with its examples, the section 7 tables with
the rules proving each row. With --summary (a run's summary.json) the
outcome of that run is overlaid.

Flags:
`

// runDocs renders the living documentation.
func runDocs(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "directory that receives "+report.FileLivingDocs+" (required)")
	summary := fs.String("summary", "", "a run's summary.json whose outcomes to overlay (optional)")
	fs.Usage = func() {
		fmt.Fprint(stderr, docsUsage)
		fs.PrintDefaults()
	}
	rest, err := cli.Parse(fs, args, "conformance docs", usageLine(docsUsage))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass
		}
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitUsage
	}
	if *out == "" || len(rest) > 0 {
		fmt.Fprintf(stderr, "conformance docs: --out DIR is required, and nothing else\n%s\n", usageLine(docsUsage))
		return exitUsage
	}
	var sum *report.Summary
	if *summary != "" {
		data, err := os.ReadFile(*summary)
		if err == nil {
			sum = &report.Summary{}
			err = json.Unmarshal(data, sum)
		}
		if err != nil {
			fmt.Fprintf(stderr, "conformance docs: --summary: %v\n", err)
			return exitUsage
		}
	}
	fts, err := gherkin.Load(features.FS)
	var page bytes.Buffer
	if err == nil {
		err = report.WriteLivingDocs(&page, fts, sum)
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitFail
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitUsage
	}
	path := filepath.Join(*out, report.FileLivingDocs)
	if err := atomicfile.WriteBytes(path, page.Bytes()); err != nil {
		fmt.Fprintf(stderr, "conformance docs: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s (%d bytes)\n", path, page.Len())
	return exitPass
}
