// Package stepstest runs the whole suite against a fresh reference once per
// test binary, for the tests of the runner (package steps) and of its
// writers (package report), which read the same full run.
package stepstest

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
)

// Run is a full run of the suite: its result, the pretty console it wrote
// and the directory of its report files.
type Run struct {
	Result  steps.Result
	Console string
	Dir     string
}

var (
	once sync.Once
	full Run
	err  error
)

// FullRun runs every scenario against a fresh reference the first time a
// test binary calls it, and returns that run ever after. The reference
// stops when the calling test ends; the report directory stays until
// Cleanup (call it from TestMain).
func FullRun(tb testing.TB) Run {
	tb.Helper()
	once.Do(func() {
		srv := httpapitest.NewServer(tb)
		if full.Dir, err = os.MkdirTemp("", "conformance-report-"); err != nil {
			return
		}
		var out bytes.Buffer
		full.Result, err = steps.Run(context.Background(), steps.Options{
			BaseURL: srv.URL, Profile: profiles.Reference(srv.URL), Format: "pretty",
			Output: &out, ReportDir: full.Dir, RequestTimeout: 5 * time.Second,
		})
		full.Console = out.String()
	})
	if err != nil {
		tb.Fatalf("the full run: %v", err)
	}
	return full
}

// Cleanup removes the report directory of the full run, if one was made.
func Cleanup() {
	if full.Dir != "" {
		_ = os.RemoveAll(full.Dir)
	}
}

// Features loads the feature files of fsys for a run (steps.Options.Features).
func Features(tb testing.TB, fsys fs.FS) *gherkin.Features {
	tb.Helper()
	fts, err := gherkin.Load(fsys)
	if err != nil {
		tb.Fatal(err)
	}
	return fts
}
