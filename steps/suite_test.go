package steps_test

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// runOpts runs the suite with opts, completed with the reference profile of
// opts.BaseURL, 4 scenarios at once and the progress format.
func runOpts(tb testing.TB, opts steps.Options) steps.Result {
	tb.Helper()
	if opts.Output == nil {
		opts.Output = io.Discard
	}
	if opts.Profile == nil {
		opts.Profile = profiles.Reference(opts.BaseURL)
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = 4
	}
	if opts.Format == "" {
		opts.Format = "progress"
	}
	res, err := steps.Run(context.Background(), opts)
	require.NoError(tb, err)
	return res
}

// TestSuiteAgainstReference runs every scenario against the reference: all
// must pass, none may be skipped or undefined, and the reports are written.
func TestSuiteAgainstReference(t *testing.T) {
	full := stepstest.FullRun(t)
	res := full.Result
	for _, sc := range res.Summary.Scenarios {
		if sc.Status != verdict.StatusPassed {
			t.Errorf("%s: %s — %s\n%s", sc.Status, sc.Feature, sc.Name, sc.Reason)
		}
	}
	require.Zero(t, res.Failed, full.Console)
	require.Zero(t, res.Undefined)
	require.Zero(t, res.Skipped)
	require.Greater(t, res.Passed, 80)
	for _, f := range []string{"junit.xml", "cucumber.json", "summary.json"} {
		require.FileExists(t, filepath.Join(full.Dir, f))
	}
	t.Logf("%d scenarios passed in %.2fs", res.Passed, res.Summary.Seconds)
}

// TestCapabilitiesMissingFromTheProfileSkip: a scenario whose capability the
// profile does not unlock is skipped, naming the missing key; it is neither
// failed nor passed.
func TestCapabilitiesMissingFromTheProfileSkip(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	prof := profiles.Reference(srv.URL)
	prof.FundedCustomer = nil
	prof.InactiveSubCategory = ""
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: prof, Tags: "@limits,@inactive-sub-category", Output: io.Discard, Format: "progress",
	})
	require.NoError(t, err)
	assert.Zero(t, res.Failed)
	assert.Positive(t, res.Passed)
	require.Equal(t, 4, res.Skipped) // 2 @funded limits, 2 @inactive-sub-category products
	for _, sc := range res.Summary.Scenarios {
		switch {
		case slices.Contains(sc.Tags, "funded"):
			assert.Equal(t, verdict.StatusSkipped, sc.Status, sc.Name)
			assert.Contains(t, sc.Reason, "funded_customer.token")
		case slices.Contains(sc.Tags, "inactive-sub-category"):
			assert.Equal(t, verdict.StatusSkipped, sc.Status, sc.Name)
			assert.Contains(t, sc.Reason, "inactive_sub_category")
		default:
			assert.Equal(t, verdict.StatusPassed, sc.Status, sc.Name)
		}
	}
	assert.False(t, res.Summary.Capabilities["funded"].Available)
}

// TestRunRefusesBadOptions: a run without a usable profile does not start.
func TestRunRefusesBadOptions(t *testing.T) {
	t.Parallel()
	noKey := profiles.Reference("http://127.0.0.1:1")
	noKey.SecretKey = ""
	for name, opts := range map[string]steps.Options{
		"no profile":     {},
		"no secret key":  {Profile: noKey},
		"not a URL":      {Profile: profiles.Reference(""), BaseURL: "ftp://x"},
		"unknown format": {Profile: profiles.Reference("http://127.0.0.1:1"), Format: "html"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := steps.Run(context.Background(), opts)
			require.ErrorIs(t, err, steps.ErrUsage)
		})
	}
}

// TestConsoleIsInFileOrder: the console prints the scenarios in the order
// the feature files hold them (the files in path order), though four run
// at once and end in any order.
func TestConsoleIsInFileOrder(t *testing.T) {
	full := stepstest.FullRun(t)
	type at struct {
		file string
		line int
	}
	var seen []at
	for _, l := range strings.Split(full.Console, "\n") {
		m := regexp.MustCompile(`^[A-Z]+ .* # ([a-z_-]+\.feature):(\d+)$`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[2])
		require.NoError(t, err)
		seen = append(seen, at{m[1], n})
	}
	require.Len(t, seen, len(full.Result.Summary.Scenarios), "every scenario printed once")
	for i := 1; i < len(seen); i++ {
		a, b := seen[i-1], seen[i]
		if a.file > b.file || a.file == b.file && a.line >= b.line {
			t.Fatalf("%s:%d printed before %s:%d", a.file, a.line, b.file, b.line)
		}
	}
}

// TestResultsAreInFileOrder: the summary's scenarios (and so every report
// and the scenarios listed under a cause) are in file order too, whatever
// order they ended in.
func TestResultsAreInFileOrder(t *testing.T) {
	full := stepstest.FullRun(t)
	var locs []string
	for _, sc := range full.Result.Summary.Scenarios {
		if sc.Judge == "" || sc.Judge == verdict.JudgeScenarios {
			locs = append(locs, sc.Location)
		}
	}
	require.NotEmpty(t, locs)
	for i := 1; i < len(locs); i++ {
		a, b := splitLocation(t, locs[i-1]), splitLocation(t, locs[i])
		if a.file > b.file || a.file == b.file && a.line >= b.line {
			t.Fatalf("%s before %s in the summary", locs[i-1], locs[i])
		}
	}
}

type fileLine struct {
	file string
	line int
}

func splitLocation(t *testing.T, loc string) fileLine {
	t.Helper()
	file, line, ok := strings.Cut(loc, ":")
	require.True(t, ok, loc)
	n, err := strconv.Atoi(line)
	require.NoError(t, err, loc)
	return fileLine{file, n}
}
