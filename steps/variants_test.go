package steps_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/sweep"
	"github.com/partnercommerce/conformance/judges"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// variantSeeds is how many random seeds of the generated judge
// TestEveryJudgePassesVariantServers runs per variant:
// CONFORMANCE_VARIANT_SEEDS, or 1 (make test stays short; the seeds after
// the first run the generated judge alone).
func variantSeeds(tb testing.TB) int {
	tb.Helper()
	v := os.Getenv("CONFORMANCE_VARIANT_SEEDS")
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "CONFORMANCE_VARIANT_SEEDS")
	return max(n, 1)
}

// watched is a judge of a run whose double's changed answers are counted
// from its start to its end.
type watched struct {
	inner          steps.Judge
	d              *variants.Double
	before, during *atomic.Int64
}

func (w watched) Name() string { return w.inner.Name() }

func (w watched) Judge(ctx context.Context, env steps.JudgeEnv) (steps.Judgement, error) {
	w.before.CompareAndSwap(-1, w.d.Changed()) // the first judge after the scenarios
	start := w.d.Changed()
	defer func() { w.during.Add(w.d.Changed() - start) }()
	return w.inner.Judge(ctx, env)
}

// TestEveryJudgePassesVariantServers runs the whole conformance run (the
// scenarios, the generated properties with 20 examples a property, the
// probe, with a seed picked at random and printed) against each variant:
// servers that differ from the reference only where the document allows
// it, in parallel. No scenario and no property may fail; the scenarios
// carry exactly the warnings of the readings the variant departs from; a
// variant that refuses what scenarios need to observe their rules (its
// NotJudged) leaves exactly those not judged, by that cause, and the run
// INCOMPLETE, never PASS nor FAIL, and every other run is PASS; and the
// scenarios, the generated judge and the probe each read at least one
// answer the variant changed (unless the variant names the judge in
// Unseen).
//
// A rate limit that starts each key with no allowance throttles the first
// judge to send, and the run, paced from then on, is not throttled again:
// its generated judge and its probe are also asked alone against a fresh
// double, where each must meet the limit and wait it out.
func TestEveryJudgePassesVariantServers(t *testing.T) {
	sweep.NoRace(t)
	t.Parallel()
	seeds := variantSeeds(t)
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			d := serveVariant(t, v)
			for i := range seeds {
				asked := judges.All
				if i > 0 {
					asked = []string{verdict.JudgeGenerated}
				}
				res, changed := runVariant(t, d, asked)
				checkVariantRun(t, v, res, i == 0)
				if i == 0 {
					assert.NoError(t, v.CheckChanged(variants.Suite, changed[verdict.JudgeScenarios]))
				}
				for _, j := range []struct {
					name  string
					judge variants.Judge
				}{{verdict.JudgeGenerated, variants.Generated}, {verdict.JudgeProbe, variants.Probe}} {
					if i > 0 && j.name == verdict.JudgeProbe {
						continue // the seeds after the first run the generated judge alone
					}
					n := changed[j.name]
					if v.Throttled != nil && n == 0 {
						res, alone := runVariant(t, serveVariant(t, v), []string{j.name})
						checkVariantRun(t, v, res, false)
						n = alone[j.name]
					}
					assert.NoError(t, v.CheckChanged(j.judge, n), j.name)
				}
			}
		})
	}
}

// served is a variant served for a test: the double and its URL.
type served struct {
	*variants.Double
	url string
}

func serveVariant(t *testing.T, v variants.Variant) served {
	t.Helper()
	d, err := v.Double()
	require.NoError(t, err)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	return served{Double: d, url: srv.URL}
}

// runVariant runs the judges asked against d, the generated one with a
// seed picked at random and logged, and returns the run and the answers
// the double changed during each judge (by judge name).
func runVariant(t *testing.T, d served, asked []string) (steps.Result, map[string]int64) {
	t.Helper()
	seed := rand.Uint64N(1<<31) + 1
	var before atomic.Int64
	before.Store(-1)
	during := map[string]*atomic.Int64{verdict.JudgeGenerated: new(atomic.Int64), verdict.JudgeProbe: new(atomic.Int64)}
	start := d.Changed()
	res, err := judges.Run(context.Background(), judges.Options{
		Suite: steps.Options{BaseURL: d.url, Profile: profiles.Reference(d.url), Concurrency: 4, Format: "progress",
			Output: io.Discard, RequestTimeout: 10 * time.Second},
		Judges: asked, Budget: 2 * time.Minute,
		Generated: judges.Generated{Examples: 20, Steps: 20, Seed: seed, ShrinkTime: 2 * time.Second},
		Probe:     judges.Probe{Seed: seed},
		Watch: func(j steps.Judge) steps.Judge {
			return watched{inner: j, d: d.Double, before: &before, during: during[j.Name()]}
		},
	})
	require.NoError(t, err)
	changed := map[string]int64{verdict.JudgeScenarios: before.Load() - start}
	for name, n := range during {
		changed[name] = n.Load()
	}
	t.Logf("judges %v, seed %d: %d passed (%d with warnings), %d not judged; the double changed %v answers by judge",
		asked, seed, res.Passed, res.Warned, res.NotJudged, changed)
	return res, changed
}

// checkVariantRun checks a run against variant v: what may fail, go
// unjudged or warn, and its verdict.
func checkVariantRun(t *testing.T, v variants.Variant, res steps.Result, withScenarios bool) {
	t.Helper()
	warned := map[string]bool{}
	notJudged := 0
	for _, sc := range res.Summary.Scenarios {
		switch {
		case sc.Status == verdict.StatusNotJudged && v.NotJudged != "" && sc.Cause != nil && strings.Contains(sc.Cause.Headline, v.NotJudged):
			notJudged++
		case sc.Status != verdict.StatusPassed:
			t.Errorf("%s %s: %s — %s\n%s", sc.Judge, sc.Status, sc.Feature, sc.Name, sc.Reason)
		}
		if sc.Judge == verdict.JudgeScenarios {
			for _, w := range sc.Warnings {
				warned[w.Reading] = true
			}
		}
	}
	require.Zero(t, res.Failed, "a server that differs only where the document allows (%s) must not fail", v.Why)
	require.Zero(t, res.Undefined)
	if v.Throttled != nil {
		assert.Positive(t, v.Throttled.Load(), "the variant throttled the run")
		assert.Positive(t, res.Summary.Throttling.Throttled, "the run says it was throttled")
	}
	if !withScenarios {
		return
	}
	if v.NotJudged != "" {
		assert.Positive(t, notJudged, "the variant leaves scenarios nothing to observe: they are not judged, by %q", v.NotJudged)
		assert.Equal(t, verdict.VerdictIncomplete, res.Verdict(), "a run whose rules were not judged is not a pass")
	} else {
		assert.Equal(t, verdict.VerdictPass, res.Verdict())
	}
	var got []string
	for id := range warned {
		got = append(got, id)
	}
	sort.Strings(got)
	want := slices.Clone(v.Warns)
	sort.Strings(want)
	assert.Equal(t, want, got, "the readings the scenarios report as warnings")
}
