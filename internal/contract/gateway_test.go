package contract

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const nginx503 = `<html>
<head><title>503 Service Temporarily Unavailable</title></head>
<body>
<center><h1>503 Service Temporarily Unavailable</h1></center>
<hr><center>nginx/1.22.1</center>
</body>
</html>
`

const nginx400 = `<html>
<head><title>400 No required SSL certificate was sent</title></head>
<body>
<center><h1>400 Bad Request</h1></center>
<center>No required SSL certificate was sent</center>
<hr><center>nginx/1.22.1</center>
</body>
</html>
`

func TestGatewayAnswer(t *testing.T) {
	t.Parallel()
	html := http.Header{"Content-Type": {"text/html"}, "Server": {"nginx/1.22.1"}}
	text := http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	for _, tc := range []struct {
		name   string
		status int
		h      http.Header
		body   string
		want   string // Error(); "" when the answer is the API's
	}{
		{"nginx throttling", 503, html, nginx503,
			"a gateway answered 503 Service Temporarily Unavailable (Server: nginx/1.22.1), not the API: throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After"},
		{"nginx without a client certificate", 400, html, nginx400,
			"a gateway answered 400 No required SSL certificate was sent (Server: nginx/1.22.1), not the API: the gateway wants a client certificate it trusts: give --client-cert FILE --client-key FILE"},
		{"a firewall's page without a Server header", 403, http.Header{"Content-Type": {"text/html; charset=UTF-8"}},
			"<!DOCTYPE html><html><head><title>Access denied | api.example.com</title></head><body>blocked</body></html>",
			`a gateway answered 403 Forbidden (title "Access denied | api.example.com"), not the API: the gateway refused the request: does it want a header of its own (-H 'Name: value') or a client certificate (--client-cert FILE --client-key FILE)?`},
		{"envoy's text", 503, http.Header{"Content-Type": {"text/plain"}, "Server": {"envoy"}}, "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
			`a gateway answered 503 Service Unavailable (Server: envoy, title "upstream connect error or disconnect/reset before headers. reset reason: connection failure"), not the API: throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After`},
		{"an empty 502", 502, http.Header{}, "",
			"a gateway answered 502 Bad Gateway (no Server header), not the API: the gateway got no answer from the API behind it: is the API running, and is it the gateway's upstream?"},
		{"a gateway timeout in text", 504, text, "Gateway Timeout\n",
			"a gateway answered 504 Gateway Timeout (no Server header), not the API: the API behind the gateway did not answer within the gateway's timeout: lower --rate, or raise the gateway's timeout"},
		{"the API's JSON behind nginx", 200, http.Header{"Content-Type": {"application/json"}, "Server": {"nginx"}}, `{"status":true,"message":"OK"}`, ""},
		{"the API's JSON refusal behind nginx", 503, http.Header{"Server": {"nginx"}}, ` {"status":false,"message":"down"}`, ""},
		{"a JSON string", 503, http.Header{"Server": {"nginx"}}, `"down"`, ""},
		{"the API's message in text (errors-as-text)", 401, http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Server": {"api"}}, MsgTokenRequired + "\n", ""},
		{"the API's prefixed message in text", 403, text, AccessDeniedPrefix + ": partner mismatch", ""},
		{"a text refusal without a Server header", 400, text, "bad request\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, ok := GatewayAnswer(tc.status, tc.h, []byte(tc.body))
			if tc.want == "" {
				assert.False(t, ok, "%+v", g)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tc.want, g.Error())
			assert.ErrorIs(t, g, ErrGateway)
		})
	}
}

func TestGatewayError(t *testing.T) {
	t.Parallel()
	g, ok := GatewayAnswer(503, http.Header{"Content-Type": {"text/html"}, "Server": {"nginx"}}, []byte(nginx503))
	require.True(t, ok)
	err := error(&GatewayError{Gateway: g, Count: 744, Of: 800})
	assert.Equal(t, "a gateway answered 744 of 800 requests, not the API: 503 Service Temporarily Unavailable (Server: nginx): "+
		"throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After", err.Error())
	assert.True(t, errors.Is(err, ErrGateway))
}

func TestMostlyGateway(t *testing.T) {
	t.Parallel()
	assert.False(t, MostlyGateway(0, 0))
	assert.False(t, MostlyGateway(50, 100), "half is not most")
	assert.True(t, MostlyGateway(51, 100))
	assert.True(t, MostlyGateway(1, 1))
}

// BenchmarkGatewayAnswerOfTheAPI is what the load tester spends on every
// answer of the API to know it is not a gateway's: a JSON body is told
// apart by its first byte, without allocating.
func BenchmarkGatewayAnswerOfTheAPI(b *testing.B) {
	h := http.Header{"Content-Type": {"application/json"}, "Server": {"nginx"}}
	body := []byte(`  {"status":true,"message":"Pembayaran berhasil diproses.","data":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := GatewayAnswer(200, h, body); ok {
			b.Fatal("the API's answer taken for a gateway's")
		}
	}
}
