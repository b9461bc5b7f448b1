package steps_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/gherkin"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

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
	assert.Equal(t, verdict.StatusFailed, res.Summary.Scenarios[0].Status)

	rerun, err := steps.ReadRerun(filepath.Join(dir, gherkin.RerunFile))
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
	res := stepstest.FullRun(t).Result
	seen := map[string]string{}
	for _, sc := range res.Summary.Scenarios {
		require.Regexp(t, `^[a-z_]+\.feature:\d+$`, sc.Location, sc.Name)
		if prev, ok := seen[sc.Location]; ok {
			t.Errorf("%s and %s share the location %s", prev, sc.Name, sc.Location)
		}
		seen[sc.Location] = sc.Name
	}
}
