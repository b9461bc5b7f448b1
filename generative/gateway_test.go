package generative_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/verdict"
)

// TestAGatewaysPageIsNotTheAPIs: a gateway in front of the reference
// answers some requests with nginx's throttling page (503 in HTML, no
// Retry-After: nginxtest.Throttle), always the same ones.
//
//   - Every request for the payment methods: the properties of that
//     operation are not judged, by the gateway's page, and none fails nor
//     has a reproduction (no curl line, no feature file); the others pass.
//     The summary says the run is INCOMPLETE and why.
//   - Every provisioning: the run cannot prepare its accounts, and says
//     that a gateway answered (contract.ErrGateway), not the API.
func TestAGatewaysPageIsNotTheAPIs(t *testing.T) {
	t.Parallel()
	t.Run("some answers", func(t *testing.T) {
		t.Parallel()
		url := serveReference(t, func(h http.Handler) http.Handler { return nginxtest.Throttle(h, "/client/v2/payment/methods") })
		res := runOpts(t, generative.Options{Profile: profiles.Reference(url)})
		assert.Zero(t, res.Failed())
		notJudged := 0
		for _, p := range res.Properties {
			assert.Empty(t, p.Reproduction, p.Name())
			assert.Empty(t, p.Feature, p.Name())
			if p.Status != verdict.StatusNotJudged {
				continue
			}
			notJudged++
			require.NotNil(t, p.Gateway, p.Name())
			assert.Equal(t, http.StatusServiceUnavailable, p.Gateway.Status, p.Name())
			assert.Equal(t, "nginx/1.22.1", p.Gateway.Server, p.Name())
			assert.Contains(t, p.Reason, "throttling without Retry-After? lower --rate")
		}
		for _, p := range res.Properties {
			if p.Operation == contract.OpListPaymentMethods {
				assert.Equal(t, verdict.StatusNotJudged, p.Status, p.Name())
			}
		}
		assert.Positive(t, notJudged)
		var out bytes.Buffer
		generative.PrintSummary(&out, res)
		assert.Contains(t, out.String(), "\nINCOMPLETE: ")
		assert.Contains(t, out.String(), " not judged: a gateway answered 503 Service Temporarily Unavailable (Server: nginx/1.22.1), not the API: ")
		assert.NotContains(t, out.String(), "curl")
	})
	t.Run("the run's preparation", func(t *testing.T) {
		t.Parallel()
		url := serveReference(t, func(h http.Handler) http.Handler {
			return nginxtest.Throttle(h, "/client/v2/customer/provision_account")
		})
		_, err := generative.Run(context.Background(), generative.Options{Profile: profiles.Reference(url), Seed: 1, Examples: 5, Duration: time.Minute})
		require.ErrorIs(t, err, contract.ErrGateway)
		assert.Contains(t, err.Error(), "provisioning a cashier: a gateway answered 503 Service Temporarily Unavailable (Server: nginx/1.22.1), not the API: ")
	})
}
