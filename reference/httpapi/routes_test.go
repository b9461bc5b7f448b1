package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/reference"
)

// TestRoutesMatchSpec checks the route table against openapi.yaml: the same
// operations, tags as groups, and security requirements as access.
func TestRoutesMatchSpec(t *testing.T) {
	t.Parallel()
	doc, err := api.GetSpec()
	require.NoError(t, err)
	table := routes()
	groups := map[string]reference.Group{"Products": reference.GroupProducts, "Customers": reference.GroupCustomers, "Payments": reference.GroupPayments}
	seen := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			seen++
			rt, ok := table[path][method]
			require.True(t, ok, "%s %s missing from routes()", method, path)
			assert.True(t, strings.EqualFold(op.OperationID, rt.op), "%s vs %s", op.OperationID, rt.op)
			require.Len(t, op.Tags, 1)
			assert.Equal(t, groups[op.Tags[0]], rt.access.Group, op.OperationID)
			security := doc.Security
			if op.Security != nil {
				security = *op.Security
			}
			needsBearer := false
			for _, req := range security {
				if _, ok := req["bearerAuth"]; ok {
					needsBearer = true
				}
				assert.Contains(t, req, "secretKey", op.OperationID)
			}
			assert.Equal(t, needsBearer, rt.access.Token, op.OperationID)
			assert.Equal(t, strings.EqualFold(op.OperationID, opSyncProducts), rt.access.MainOnly, op.OperationID)
		}
	}
	n := 0
	for _, ms := range table {
		n += len(ms)
	}
	assert.Equal(t, seen, n, "routes() has operations the spec lacks")
	assert.Equal(t, "GET", allowHeader(table["/client/v2/product/list"]))
	assert.Equal(t, "POST", allowHeader(table["/client/v2/payment"]))
}

func TestWrongMethodNamesTheAllowedOnes(t *testing.T) {
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	h := NewServer(nil, st)
	for path, want := range map[string]string{"/client/v2/payment": "POST", "/client/v2/payment/status": "GET"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodDelete, path, nil))
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code, path)
		assert.Equal(t, want, rec.Header().Get("Allow"), path)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), path)
	}
}
