package loadtest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestDocumentedSystemFaultIsAllowed: section 7 gives the product endpoints
// a 500 "System fault" whose message follows the server error; a product
// list answered so is an answer the document allows, and the run passes. A
// 503 is no answer the document gives: the run fails, naming the
// operation.
func TestDocumentedSystemFaultIsAllowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		passes bool
	}{
		{http.StatusInternalServerError, true},
		{http.StatusServiceUnavailable, false},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := httpapitest.NewServerAnswering(t, "/client/v2/product/list", tc.status, "Terjadi kesalahan sistem.")
			_, rep := run(t, profiles.Reference(srv.URL), loadtest.WithScenario(loadtest.ScenarioMixed),
				loadtest.WithLoad(constant(40, 500*time.Millisecond)), loadtest.WithCatalog(referenceCatalog), loadtest.WithReconcile(false))
			list := rep.Ops[record.OpList]
			require.Positive(t, list.Requests)
			out := text(t, rep)
			if tc.passes {
				assert.Equal(t, list.Requests, list.Allowed, out)
				assert.True(t, rep.Passed, out)
				return
			}
			assert.Zero(t, list.Allowed, out)
			assert.False(t, rep.Passed, out)
			assert.Contains(t, strings.Join(rep.Failures, "\n"), "list: none of", out)
		})
	}
}
