package steps_test

import (
	"context"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/verdict"
)

// gatewayHeadline is the one cause of the scenarios a gateway's 503 page
// kept from being judged.
const gatewayHeadline = "a gateway answered 503 Service Temporarily Unavailable (Server: nginx/1.22.1), not the API: " +
	"throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After"

// TestAGatewaysPageIsNotTheAPIs: a gateway in front of the reference
// answers some requests with nginx's throttling page (503 in HTML, no
// Retry-After: nginxtest.Throttle), always the same ones.
//
//   - Every request for the payment methods: the scenarios that list them
//     are not judged, by one cause that names the gateway, what it answered
//     and what to change; none fails (no "not JSON" blamed on the API), and
//     the run, whose answers are mostly the API's, is INCOMPLETE.
//   - Every request but the profile's: the answers are mostly the
//     gateway's, so the run stops, INCOMPLETE (an error matching
//     contract.ErrGateway, saying how many answers were the gateway's), and
//     the scenarios it did not start are not run, none failed.
func TestAGatewaysPageIsNotTheAPIs(t *testing.T) {
	t.Parallel()
	t.Run("some answers", func(t *testing.T) {
		t.Parallel()
		url := serveFunc(t, nginxtest.Throttle(httpapitest.Handler(t), "/client/v2/payment/methods").ServeHTTP)
		res := runOpts(t, steps.Options{BaseURL: url, Tags: "@payment-methods or @customers"})
		assert.Zero(t, res.Failed)
		require.Positive(t, res.NotJudged)
		require.Len(t, res.Summary.NotJudgedGroups, 1)
		g := res.Summary.NotJudgedGroups[0]
		assert.Equal(t, gatewayHeadline, g.Headline)
		assert.Equal(t, res.NotJudged, g.Count)
		for _, sc := range res.Summary.Scenarios {
			if sc.Status == verdict.StatusNotJudged {
				assert.Contains(t, sc.Tags, "payment-methods", sc.Name)
				assert.Regexp(t, "; it answered GET "+regexp.QuoteMeta(url)+"/client/v2/payment/methods", sc.Reason)
			}
		}
		assert.Nil(t, res.Summary.Stopped)
		assert.Equal(t, verdict.VerdictIncomplete, res.Verdict())
	})
	t.Run("mostly", func(t *testing.T) {
		t.Parallel()
		paged := []string{"/client/v2/product/list", "/client/v2/product/sync", "/client/v2/customer/provision_account",
			"/client/v2/payment/methods", "/client/v2/payment", "/client/v2/payment/status"}
		url := serveFunc(t, nginxtest.Throttle(httpapitest.Handler(t), paged...).ServeHTTP)
		res, err := steps.Run(context.Background(), steps.Options{Profile: profiles.Reference(url), Output: io.Discard, Format: "progress",
			RequestTimeout: 10 * time.Second})
		require.ErrorIs(t, err, contract.ErrGateway)
		assert.Regexp(t, `^a gateway answered [0-9]+ of [0-9]+ requests, not the API: 503 Service Temporarily Unavailable \(Server: nginx/1.22.1\): throttling`, err.Error())
		assert.Zero(t, res.Failed)
		require.NotNil(t, res.Summary.Stopped)
		assert.Equal(t, verdict.StopGateway, res.Summary.Stopped.Cause)
		assert.Positive(t, res.Summary.Stopped.NotRun)
		assert.Equal(t, verdict.VerdictIncomplete, res.Verdict())
		assert.Contains(t, res.Summary.Stopped.Banner(), "INCOMPLETE after ")
	})
}
