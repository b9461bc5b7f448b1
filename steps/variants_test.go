package steps_test

import (
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/variants"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/report"
)

// TestSuitePassesVariantServers runs the whole suite against each variant
// (servers that differ from the reference only where the document allows
// it), in parallel; each run must have zero failures, carry exactly the
// warnings of the readings the variant departs from, and have read at
// least one answer the variant changed (unless the suite cannot see it).
func TestSuitePassesVariantServers(t *testing.T) {
	t.Parallel()
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			d, err := v.Double()
			require.NoError(t, err)
			srv := httptest.NewServer(d)
			t.Cleanup(srv.Close)
			res := runOpts(t, steps.Options{BaseURL: srv.URL, RequestTimeout: 10 * time.Second})
			warned := map[string]bool{}
			skipped := 0
			for _, sc := range res.Summary.Scenarios {
				if sc.Status == report.StatusSkipped && v.Skips != "" && strings.Contains(sc.Reason, v.Skips) {
					skipped++
				} else if sc.Status != report.StatusPassed {
					t.Errorf("%s: %s — %s\n%s", sc.Status, sc.Feature, sc.Name, sc.Reason)
				}
				for _, w := range sc.Warnings {
					warned[w.Reading] = true
				}
			}
			require.Zero(t, res.Failed, "a server that differs only where the document allows (%s) must pass", v.Why)
			require.Zero(t, res.Undefined)
			if v.Throttled != nil {
				assert.Positive(t, v.Throttled.Load(), "the variant throttled the run")
				assert.Positive(t, res.Summary.Throttling.Throttled, "the run says it was throttled")
			}
			if v.Skips != "" {
				assert.Positive(t, skipped, "the variant leaves scenarios nothing to observe: they are skipped with %q", v.Skips)
			}
			var got []string
			for id := range warned {
				got = append(got, id)
			}
			sort.Strings(got)
			want := slices.Clone(v.Warns)
			sort.Strings(want)
			assert.Equal(t, want, got, "the readings reported as warnings")
			t.Logf("%d passed (%d with warnings: %v), %d skipped; the double changed %d answers", res.Passed, res.Summary.Totals.Warned, got, res.Skipped, d.Changed())
			assert.NoError(t, v.CheckChanged(variants.Suite, d.Changed()))
		})
	}
}
