package repro_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/profiles"
)

// TestAHARFileHoldsTheExchangesWithTheSecretsMasked: WriteHAR writes a HAR
// 1.2 log of the exchanges in order, each request with its headers, query
// and body, each answer with its status, headers and body, and the secret
// key and the token masked as the console masks them, in the headers and
// wherever else a secret of the profile appears; a request without an
// answer has status 0.
func TestAHARFileHoldsTheExchangesWithTheSecretsMasked(t *testing.T) {
	t.Parallel()
	prof := profiles.Reference("http://127.0.0.1:1")
	sent := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	h := http.Header{"X-Secret-Key": {prof.SecretKey}, "Authorization": {"Bearer " + prof.FundedCustomer.Token}, "Content-Type": {"application/json"}}
	var b bytes.Buffer
	require.NoError(t, repro.WriteHAR(&b, "conformance", prof, []repro.Exchange{
		{Sent: sent, Elapsed: 1500 * time.Microsecond, Method: http.MethodPost, URL: "http://127.0.0.1:1/client/v2/payment", ReqHeader: h,
			ReqBody: []byte(`{"product_id":1}`), Status: 200, RespHeader: http.Header{"Content-Type": {"application/json"}}, RespBody: []byte(`{"status":true}`)},
		{Sent: sent, Method: http.MethodPost, URL: "http://127.0.0.1:1/client/v2/customer/provision_account", ReqHeader: h, ReqBody: []byte(`{}`),
			Status: 200, RespBody: []byte(`{"data":{"token":"` + prof.FundedCustomer.Token + `"}}`)},
		{Sent: sent.Add(time.Second), Method: http.MethodGet, URL: "http://127.0.0.1:1/client/v2/payment/status?partner_trx_id=a&x=1", ReqHeader: h},
	}))
	assert.NotContains(t, b.String(), prof.SecretKey)
	assert.NotContains(t, b.String(), prof.FundedCustomer.Token)

	var har struct {
		Log struct {
			Version string
			Entries []struct {
				StartedDateTime string
				Time            float64
				Request         struct {
					Method, URL string
					Headers     []struct{ Name, Value string }
					QueryString []struct{ Name, Value string }
					PostData    *struct{ MimeType, Text string }
				}
				Response struct {
					Status  int
					Content struct{ MimeType, Text string }
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &har), b.String())
	assert.Equal(t, "1.2", har.Log.Version)
	require.Len(t, har.Log.Entries, 3)
	pay, provision, lookup := har.Log.Entries[0], har.Log.Entries[1], har.Log.Entries[2]
	assert.Equal(t, `{"data":{"token":"`+profiles.Mask(prof.FundedCustomer.Token)+`"}}`, provision.Response.Content.Text, "a secret in a body is masked too")
	assert.Equal(t, "2026-11-29T07:00:00Z", pay.StartedDateTime)
	assert.InDelta(t, 1.5, pay.Time, 1e-9)
	assert.Equal(t, http.MethodPost, pay.Request.Method)
	require.NotNil(t, pay.Request.PostData)
	assert.Equal(t, `{"product_id":1}`, pay.Request.PostData.Text)
	assert.Contains(t, pay.Request.Headers, struct{ Name, Value string }{"X-Secret-Key", profiles.Mask(prof.SecretKey)})
	assert.Equal(t, 200, pay.Response.Status)
	assert.Equal(t, `{"status":true}`, pay.Response.Content.Text)
	assert.Equal(t, []struct{ Name, Value string }{{"partner_trx_id", "a"}, {"x", "1"}}, lookup.Request.QueryString)
	assert.Nil(t, lookup.Request.PostData)
	assert.Zero(t, lookup.Response.Status, "no answer")
}
