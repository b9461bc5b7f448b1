package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// TestTargetKilledMidRun: the target dies after answering some scenarios.
// The run stops (ErrTarget, exit 2) and says so: summary.json's "stopped"
// (cause, after how many scenarios, the last transport error), a STOPPED
// banner on the page and in the console; no scenario counts as failed
// because of it, and junit.xml and rerun.txt hold no failure.
func TestTargetKilledMidRun(t *testing.T) {
	t.Parallel()
	ref := httpapitest.NewServer(t)
	var (
		served atomic.Int64
		once   sync.Once
		srv    *httptest.Server
	)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > 120 {
			// Killed: no more answers, and nothing listens any more.
			once.Do(func() { go srv.Close() })
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
				}
			}
			return
		}
		ref.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	var out bytes.Buffer
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Concurrency: 4, Format: "pretty", Output: &out,
		ReportDir: dir, RequestTimeout: 5 * time.Second,
	})
	require.ErrorIs(t, err, steps.ErrTarget)
	assert.Zero(t, res.Failed, "no scenario fails because the target died:\n%s", out.String())
	assert.Positive(t, res.Passed)

	st := res.Summary.Stopped
	require.NotNil(t, st)
	assert.Equal(t, verdict.StopTarget, st.Cause)
	assert.Positive(t, st.AfterScenarios)
	assert.Positive(t, st.NotRun)
	assert.NotEmpty(t, st.LastTransportError)
	assert.Contains(t, out.String(), "\nSTOPPED after ")
	assert.Contains(t, out.String(), "RESULT: STOPPED: ")

	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	var sum struct {
		Stopped map[string]any `json:"stopped"`
	}
	require.NoError(t, json.Unmarshal(raw, &sum))
	for _, k := range []string{"cause", "reason", "after_scenarios", "not_run", "last_transport_error"} {
		assert.Contains(t, sum.Stopped, k)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.FileHTMLReport))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<section id="verdict" class="stopped">`)
	assert.Contains(t, string(page), "STOPPED after ")
	assert.NotContains(t, string(page), "FAIL: the target does not conform")
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	assert.NotContains(t, string(junit), "<failure")
	// Nothing failed: the rerun file lists only the scenarios the stop
	// left not judged (a precondition without an answer), to run again.
	rerun, err := os.ReadFile(filepath.Join(dir, gherkin.RerunFile))
	require.NoError(t, err)
	var notJudged []string
	for _, r := range res.Summary.Scenarios {
		if r.Status == verdict.StatusNotJudged {
			notJudged = append(notJudged, r.Location)
		}
	}
	assert.Equal(t, notJudged, strings.Fields(string(rerun)))
}
