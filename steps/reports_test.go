package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
)

// The JUnit structure Jenkins, GitLab and GitHub read (their parsers look
// at these elements and attributes), written here independently of the
// writer's own types.
type (
	jTestsuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []jTestsuite `xml:"testsuite"`
	}
	jTestsuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []jTestcase `xml:"testcase"`
	}
	jTestcase struct {
		Name       string `xml:"name,attr"`
		Classname  string `xml:"classname,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Skipped []struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		Failures []struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Errors []struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr"`
		} `xml:"error"`
		SystemOut string `xml:"system-out"`
	}
)

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

// TestJUnitAgreesWithSummary: every count of junit.xml, read as
// CI systems read it, equals summary.json's; a skipped scenario is one
// <skipped message>, a failure carries its report in message and body, every
// testcase has a classname.
func TestJUnitAgreesWithSummary(t *testing.T) {
	t.Parallel()
	_, dir, _ := reportRun(t)
	var sum steps.Summary
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	data, err = os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var ju jTestsuites
	require.NoError(t, xml.Unmarshal(data, &ju))

	tot := sum.Totals
	assert.Equal(t, tot.Passed+tot.Failed+tot.Skipped+tot.Undefined, ju.Tests, "tests")
	assert.Equal(t, tot.Failed, ju.Failures, "failures")
	assert.Equal(t, tot.Skipped, ju.Skipped, "skipped")
	assert.Equal(t, tot.Undefined, ju.Errors, "errors")

	var cases, failures, skipped int
	for _, s := range ju.Suites {
		assert.Len(t, s.Cases, s.Tests, s.Name)
		var f, sk int
		for _, c := range s.Cases {
			assert.NotEmpty(t, c.Classname, c.Name)
			assert.Equal(t, s.Name, c.Classname, "classname is the feature")
			assert.LessOrEqual(t, len(c.Skipped)+len(c.Failures)+len(c.Errors), 1, "one outcome per testcase: %s", c.Name)
			for _, e := range c.Errors {
				assert.NotEqual(t, "skipped", e.Type, "a skip is never an error: %s", c.Name)
			}
			if len(c.Skipped) == 1 {
				sk++
				assert.Contains(t, c.Skipped[0].Message, "profile lacks funded_customer.token")
			}
			if len(c.Failures) == 1 {
				f++
				assert.NotEmpty(t, c.Failures[0].Message)
				assert.Contains(t, c.Failures[0].Body, c.Failures[0].Message, "the failure text is in the body too")
				assert.Contains(t, c.Failures[0].Body, "expected:")
			}
		}
		assert.Equal(t, s.Failures, f, s.Name)
		assert.Equal(t, s.Skipped, sk, s.Name)
		cases += len(s.Cases)
		failures += f
		skipped += sk
	}
	assert.Equal(t, ju.Tests, cases)
	assert.Equal(t, tot.Failed, failures)
	assert.Equal(t, tot.Skipped, skipped)
	assert.Len(t, sum.Scenarios, cases)
}

// TestCucumberShowsSkips: in cucumber.json a skipped scenario
// has only skipped steps and says why; one feature per file.
func TestCucumberShowsSkips(t *testing.T) {
	t.Parallel()
	res, dir, _ := reportRun(t)
	data, err := os.ReadFile(filepath.Join(dir, "cucumber.json"))
	require.NoError(t, err)
	var feats []struct {
		URI      string `json:"uri"`
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(data, &feats))
	uris := map[string]bool{}
	skipped, elements := 0, 0
	for _, f := range feats {
		assert.False(t, uris[f.URI], "one feature per file: %s", f.URI)
		uris[f.URI] = true
		for _, e := range f.Elements {
			elements++
			if e.Steps[0].Result.Status != "skipped" {
				continue
			}
			skipped++
			assert.Contains(t, e.Steps[0].Result.Error, "profile lacks", e.Name)
			for _, st := range e.Steps {
				assert.Equal(t, "skipped", st.Result.Status, e.Name)
			}
		}
	}
	assert.Equal(t, res.Skipped, skipped)
	assert.Len(t, res.Summary.Scenarios, elements)
}

// TestPrettyConsole (issues 9.5 and 7 §1): with concurrent scenarios, each
// scenario is written whole; a skipped scenario is never shown as passed
// (no godog summary counting it so); each failure report is printed once;
// the five slowest scenarios close the run; no colour unless asked.
func TestPrettyConsole(t *testing.T) {
	t.Parallel()
	res, _, out := reportRun(t)
	assert.NotContains(t, out, "\x1b[", "no colour unless Options.Color")
	assert.NotRegexp(t, regexp.MustCompile(`\d+ scenarios \(\d+ passed\)`), out, "godog's summary counts skipped scenarios as passed")

	blocks := strings.Split(out, "\n\n")
	headers := 0
	for _, b := range blocks {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		status, _, _ := strings.Cut(lines[0], " ")
		switch status {
		case "PASSED", "FAILED", "SKIPPED":
		default:
			continue
		}
		headers++
		for _, l := range lines[1:] {
			assert.True(t, strings.HasPrefix(l, "  "), "a line of another scenario inside %q: %q", lines[0], l)
			assert.NotRegexp(t, `^\s*\|`, l, "an example row inside %q", lines[0])
		}
		if status == "SKIPPED" {
			assert.Contains(t, b, "profile lacks")
		}
	}
	assert.Equal(t, len(res.Summary.Scenarios), headers, "one block per scenario")
	assert.Equal(t, res.Failed, strings.Count(out, "found: "), "each failure report once")
	_, slowest, ok := strings.Cut(out, "slowest scenarios:\n")
	require.True(t, ok)
	assert.Len(t, strings.Split(strings.Split(slowest, "\n\n")[0], "\n"), 5)
}

// TestColorConsole: Options.Color paints the console.
func TestColorConsole(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	var out bytes.Buffer
	_, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Tags: "@payment-methods", Output: &out, Color: true,
	})
	require.NoError(t, err)
	assert.Contains(t, out.String(), "\x1b[32m")
}

// TestSelectByLocationAndRerun: file:line runs one scenario,
// the line of an example row that row only; rerun.txt lists the failures
// of a run and running them again runs nothing else.
func TestSelectByLocationAndRerun(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../features/payments.feature")
	require.NoError(t, err)
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "Scenario: A reused partner transaction id is always refused") {
			line = i + 1
		}
	}
	require.Positive(t, line)
	srv := httpapitest.NewServer(t, reference.FaultDuplicateTrxAccepted)
	loc := "features/payments.feature:" + itoa(line)
	dir := t.TempDir()
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Locations: []string{loc}, Output: &bytes.Buffer{}, Format: "progress", ReportDir: dir,
	})
	require.NoError(t, err)
	require.Len(t, res.Summary.Scenarios, 1)
	assert.Equal(t, "A reused partner transaction id is always refused", res.Summary.Scenarios[0].Name)
	assert.Equal(t, steps.StatusFailed, res.Summary.Scenarios[0].Status)

	rerun, err := steps.ReadRerun(filepath.Join(dir, steps.RerunFile))
	require.NoError(t, err)
	assert.Equal(t, []string{"payments.feature:" + itoa(line)}, rerun)

	// An outline row by its own line.
	limits, err := os.ReadFile("../features/limits.feature")
	require.NoError(t, err)
	row := 0
	for i, l := range strings.Split(string(limits), "\n") {
		if strings.Contains(l, "| 9 digits") {
			row = i + 1
		}
	}
	require.Positive(t, row)
	res, err = steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(srv.URL), Locations: []string{"limits.feature:" + itoa(row)}, Output: &bytes.Buffer{}, Format: "progress",
	})
	require.NoError(t, err)
	require.Len(t, res.Summary.Scenarios, 1)
	assert.Contains(t, res.Summary.Scenarios[0].Name, "9 digits")
}

// TestSelectionErrors: a malformed tag expression, a selection
// of nothing and an unknown file are usage errors before any request.
func TestSelectionErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		opts steps.Options
		want string
	}{
		"malformed":       {steps.Options{Tags: "@payments &&"}, `"@payments &&"`},
		"godog malformed": {steps.Options{Tags: "@payments,"}, `"@payments,"`},
		"no match":        {steps.Options{Tags: "@no-such-tag"}, "no scenario matches"},
		"no match both":   {steps.Options{Tags: "@payments and @products"}, "no scenario matches"},
		"unknown file":    {steps.Options{Locations: []string{"features/nope.feature:3"}}, "nope.feature"},
		"bad line":        {steps.Options{Locations: []string{"features/payments.feature:x"}}, "line number"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			opts := tc.opts
			opts.Profile = profiles.Reference(closedURL(t))
			opts.Output = &bytes.Buffer{}
			_, err := steps.Run(context.Background(), opts)
			require.ErrorIs(t, err, steps.ErrUsage)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestEveryScenarioHasALocation: the runner finds every scenario godog runs
// in its own index of the features, so reports and reruns name file:line.
func TestEveryScenarioHasALocation(t *testing.T) {
	res := fullRun(t)
	seen := map[string]string{}
	for _, sc := range res.Summary.Scenarios {
		require.Regexp(t, `^[a-z_]+\.feature:\d+$`, sc.Location, sc.Name)
		if prev, ok := seen[sc.Location]; ok {
			t.Errorf("%s and %s share the location %s", prev, sc.Name, sc.Location)
		}
		seen[sc.Location] = sc.Name
	}
}
