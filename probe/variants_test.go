package probe_test

import (
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/verdict"
)

// variantWaves is the waves of each case against a variant: a variant
// races nothing, so a few waves show it as well as the default's.
const variantWaves = 4

// TestProbePassesVariantServers runs the probe against each variant (a
// server that differs from the reference only where the document allows
// it), and a server 20 ms late on every request besides, with a seed
// picked at random and printed: every case passes (warnings are allowed),
// and the run read at least one answer the variant changed, unless the
// probe cannot see it (Variant.Unseen names why).
func TestProbePassesVariantServers(t *testing.T) {
	t.Parallel()
	for _, v := range append(variants.All(), variants.Slow(20*time.Millisecond)) {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			d, err := v.Double()
			require.NoError(t, err)
			srv := httptest.NewServer(d)
			t.Cleanup(srv.Close)
			seed := rand.Uint64N(1<<31) + 1
			res, err := probe.Run(t.Context(), probe.Options{Profile: profiles.Reference(srv.URL), Seed: seed, Waves: variantWaves})
			require.NoError(t, err)
			t.Logf("seed %d: %d requests in %.1fs; the double changed %d answers", seed, res.Requests, res.Seconds, d.Changed())
			for _, c := range res.Cases {
				assert.Equal(t, verdict.StatusPassed, c.Status, "seed %d: %s (%s)\n%s%s\n%s", seed, c.Name(), v.Why, c.Failure, c.Reason, c.Reproduction)
				assert.Positive(t, c.Waves, c.Name())
			}
			if v.Throttled != nil {
				assert.Positive(t, v.Throttled.Load(), "the variant throttled the run")
				assert.Positive(t, res.Throttling.Throttled, "the run says it was throttled")
			}
			assert.NoError(t, v.CheckChanged(variants.Probe, d.Changed()))
		})
	}
}
