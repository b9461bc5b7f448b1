package nginxtest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
)

// api answers every request with the API's JSON.
func api(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":true,"message":"OK"}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// answer is one answer of the gateway: its status, header and body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, client *http.Client, url string, header http.Header) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/client/v2/customer/profile", nil)
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header, body}
}

// classified is what contract.GatewayAnswer makes of a.
func (a answer) classified() (contract.Gateway, bool) {
	return contract.GatewayAnswer(a.status, a.header, a.body)
}

// TestGatewayPages: a real nginx passes the API's JSON through (which
// contract.GatewayAnswer leaves to the API), and answers with pages of its
// own when it throttles (503, no Retry-After), when a client certificate is
// missing (400) and when its header is missing (403): each is told as a
// gateway's, with its Server header, its title and what to change.
func TestGatewayPages(t *testing.T) {
	t.Parallel()
	upstream := api(t)
	t.Run("passes the API through", func(t *testing.T) {
		t.Parallel()
		g := nginxtest.Start(t, nginxtest.Config{Upstream: upstream})
		a := get(t, http.DefaultClient, g.URL, nil)
		require.Equal(t, http.StatusOK, a.status, "%s", a.body)
		assert.JSONEq(t, `{"status":true,"message":"OK"}`, string(a.body))
		_, gateway := a.classified()
		assert.False(t, gateway, "the API's answer through the gateway is the API's")
	})
	t.Run("throttles with its default 503", func(t *testing.T) {
		t.Parallel()
		g := nginxtest.Start(t, nginxtest.Config{Upstream: upstream, Rate: 1})
		get(t, http.DefaultClient, g.URL, nil)
		a := get(t, http.DefaultClient, g.URL, nil)
		require.Equal(t, http.StatusServiceUnavailable, a.status, "%s", a.body)
		assert.Empty(t, a.header.Get("Retry-After"))
		assert.False(t, contract.Throttled(a.status, a.header), "a 503 without Retry-After is not said to be throttled")
		gw, ok := a.classified()
		require.True(t, ok, "%s", a.body)
		assert.Contains(t, gw.Server, "nginx")
		assert.Equal(t, "503 Service Temporarily Unavailable", gw.Title)
		assert.Regexp(t, `^a gateway answered 503 Service Temporarily Unavailable \(Server: nginx/[0-9.]+\), not the API: `+
			`throttling without Retry-After\? lower --rate, or have the gateway answer 429 with Retry-After$`, gw.Error())

		// The imitation of the tests without nginx answers the same.
		rec := httptest.NewRecorder()
		nginxtest.Throttle(http.NotFoundHandler(), "/p").ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/p", nil))
		assert.Equal(t, a.status, rec.Code)
		assert.Equal(t, a.header.Get("Content-Type"), rec.Header().Get("Content-Type"))
		assert.Equal(t, string(a.body), rec.Body.String())
		imitated, ok := contract.GatewayAnswer(rec.Code, rec.Header(), rec.Body.Bytes())
		require.True(t, ok)
		assert.Equal(t, gw.Reason, imitated.Reason)
		assert.Equal(t, gw.Title, imitated.Title)
	})
	t.Run("wants a client certificate", func(t *testing.T) {
		t.Parallel()
		ca, clients := tlstest.NewCA(t, "Gateway CA"), tlstest.NewCA(t, "Client CA")
		cert, key := ca.Server(t, "gateway")
		g := nginxtest.Start(t, nginxtest.Config{Upstream: upstream, CertFile: cert, KeyFile: key, ClientCA: clients.CertFile})
		without := client(t, transport.Options{CACert: ca.CertFile})
		a := get(t, without, g.URL, nil)
		require.Equal(t, http.StatusBadRequest, a.status, "%s", a.body)
		gw, ok := a.classified()
		require.True(t, ok, "%s", a.body)
		assert.Equal(t, "No required SSL certificate was sent", gw.Reason)
		assert.Contains(t, gw.Error(), "give --client-cert FILE --client-key FILE")

		conn := transport.Options{CACert: ca.CertFile}
		conn.ClientCert, conn.ClientKey = clients.Client(t, "partner")
		a = get(t, client(t, conn), g.URL, nil)
		assert.Equal(t, http.StatusOK, a.status, "%s", a.body)
	})
	t.Run("wants its header", func(t *testing.T) {
		t.Parallel()
		g := nginxtest.Start(t, nginxtest.Config{Upstream: upstream, HeaderName: "X-Gateway-Key", HeaderValue: "abc"})
		a := get(t, http.DefaultClient, g.URL, nil)
		require.Equal(t, http.StatusForbidden, a.status, "%s", a.body)
		gw, ok := a.classified()
		require.True(t, ok, "%s", a.body)
		assert.Equal(t, "Forbidden", gw.Reason)
		assert.Contains(t, gw.Error(), "-H 'Name: value'")
		a = get(t, http.DefaultClient, g.URL, http.Header{"X-Gateway-Key": {"abc"}})
		assert.Equal(t, http.StatusOK, a.status, "%s", a.body)
	})
}

// client is an HTTP client with conn's TLS.
func client(t *testing.T, conn transport.Options) *http.Client {
	t.Helper()
	cfg, err := conn.TLSConfig()
	require.NoError(t, err)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
