package httpapitest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

func TestNewServerServesTheEmbeddedDataSetWithItsFaults(t *testing.T) {
	for _, tc := range []struct {
		faults []reference.Fault
		want   int
	}{
		{nil, http.StatusUnauthorized},
		{[]reference.Fault{reference.FaultErrorsAsText}, http.StatusUnauthorized},
	} {
		srv := httpapitest.NewServer(t, tc.faults...)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/client/v2/customer/profile", nil)
		require.NoError(t, err)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		ct := resp.Header.Get("Content-Type")
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, tc.want, resp.StatusCode)
		if len(tc.faults) == 0 {
			assert.Contains(t, ct, "application/json")
		} else {
			assert.NotContains(t, ct, "application/json", "the fault is switched on")
		}
	}
}
