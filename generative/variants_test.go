package generative_test

import (
	"context"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/variants"
	"github.com/partnercommerce/conformance/profiles"
)

// variantSeeds is how many random seeds TestGeneratedModePassesVariantServers
// runs per variant: CONFORMANCE_VARIANT_SEEDS, or 1 (make test stays short;
// set it higher for many seeds).
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

// TestGeneratedModePassesVariantServers runs the generated mode against
// each variant (a server that differs from the reference only where the
// document allows it) with seeds picked at random and printed: every
// property must pass (warnings are allowed), and the runs must have read at
// least one answer the variant changed (unless the generated mode cannot
// see it).
func TestGeneratedModePassesVariantServers(t *testing.T) {
	t.Parallel()
	seeds := variantSeeds(t)
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			d, err := v.Double()
			require.NoError(t, err)
			srv := httptest.NewServer(d)
			t.Cleanup(srv.Close)
			for range seeds {
				seed := rand.Uint64N(1<<31) + 1
				res, err := generative.Run(context.Background(), generative.Options{
					Profile: profiles.Reference(srv.URL), Seed: seed, Examples: 20, Steps: 20,
					Duration: time.Minute, ShrinkTime: 2 * time.Second,
				})
				require.NoError(t, err)
				t.Logf("seed %d: %d requests in %.1fs", seed, res.Requests, res.Seconds)
				if v.Throttled != nil {
					require.Positive(t, v.Throttled.Load(), "the variant throttled the run")
					require.Positive(t, res.Throttling.Throttled, "the run says it was throttled")
				}
				for _, p := range res.Properties {
					if p.Status != generative.StatusPassed {
						t.Errorf("seed %d: %s (%s)\n%s\n%s", seed, p.Name(), v.Why, p.Failure, p.Reproduction)
					}
				}
			}
			t.Logf("the double changed %d answers", d.Changed())
			assert.NoError(t, v.CheckChanged(variants.Generated, d.Changed()))
		})
	}
}
