package steps_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// systemFaultFeature reads a new cashier's profile twice: as a scenario
// that wants its 200, and as the last steps of a generated sequence.
const systemFaultFeature = `Feature: A profile that cannot be loaded

  Scenario: A cashier reads its profile
    Given a cashier provisioned by the partner
    When the cashier reads its profile
    Then the answer comes back with status 200 and the message "OK"

  Scenario: A generated sequence reads a profile
    Given a cashier provisioned by the partner
    When the cashier reads its profile
    Then the target answers without a server fault
`

// TestDocumentedSystemFaultIsAnAnswer: section 7 gives the profile a 500
// with the message "Profil belum dapat dimuat. Silakan coba lagi nanti.".
// Answered to a profile read the document accepts, it leaves a scenario
// that wants the profile nothing to observe (not judged: neither failed
// nor passed), and it is no server fault. A 500 with another message fails
// both.
func TestDocumentedSystemFaultIsAnAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		message string
		want    []string // the outcome of each scenario
	}{
		{contract.MsgProfileUnloaded, []string{verdict.StatusNotJudged, verdict.StatusPassed}},
		{"Terjadi kesalahan sistem.", []string{verdict.StatusFailed, verdict.StatusFailed}},
	} {
		t.Run(tc.message, func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServerAnswering(t, "/client/v2/customer/profile", http.StatusInternalServerError, tc.message)
			var out bytes.Buffer
			res, err := steps.Run(context.Background(), steps.Options{
				Profile: profiles.Reference(srv.URL), Features: stepstest.Features(t, fstest.MapFS{"fault.feature": {Data: []byte(systemFaultFeature)}}),
				Output: &out, RequestTimeout: 10 * time.Second,
			})
			require.NoError(t, err)
			require.Len(t, res.Summary.Scenarios, len(tc.want), out.String())
			for i, sc := range res.Summary.Scenarios {
				assert.Equal(t, tc.want[i], sc.Status, "%s\n%s", sc.Name, sc.Reason)
			}
		})
	}
}
