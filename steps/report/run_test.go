package report_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
)

// The writers are tested on the reports of real runs: a full run against
// the reference (stepstest.FullRun: everything passes) and a run against a
// faulty reference with a partial profile (reportRun: some pass, some fail,
// some are skipped). Each runs once per test binary, in a few seconds.

func TestMain(m *testing.M) {
	code := m.Run()
	stepstest.Cleanup()
	if reportDir != "" {
		_ = os.RemoveAll(reportDir)
	}
	os.Exit(code)
}

// reportRun runs @payments and @limits against a reference with a fault and
// a profile without the funded customer: some scenarios pass, some fail,
// some are skipped.
// It runs once per test binary; the reports live until the process ends.
func reportRun(t *testing.T) (steps.Result, string, string) {
	t.Helper()
	reportOnce.Do(func() {
		ds, err := reference.DefaultDataset()
		if err != nil {
			reportErr = err
			return
		}
		st, err := reference.NewStore(ds, reference.WithFaults(reference.FaultMessageTypo))
		if err != nil {
			reportErr = err
			return
		}
		srv := httptest.NewServer(httpapi.NewServer(slog.New(slog.DiscardHandler), st))
		defer srv.Close()
		prof := profiles.Reference(srv.URL)
		prof.FundedCustomer = nil
		reportDir, reportErr = os.MkdirTemp("", "conformance-reports-")
		if reportErr != nil {
			return
		}
		var out bytes.Buffer
		reportRes, reportErr = steps.Run(context.Background(), steps.Options{
			Profile: prof, Tags: "@payments or @limits", Format: "pretty", Output: &out,
			ReportDir: reportDir, RequestTimeout: 5 * time.Second,
		})
		reportOut = out.String()
	})
	require.NoError(t, reportErr)
	require.Positive(t, reportRes.Failed)
	require.Positive(t, reportRes.Skipped)
	require.Positive(t, reportRes.Passed)
	return reportRes, reportDir, reportOut
}

var (
	reportOnce sync.Once
	reportRes  steps.Result
	reportDir  string
	reportOut  string
	reportErr  error
)
