package transport_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
)

// tlsServer serves 200 over TLS with a certificate of ca for 127.0.0.1;
// with clientCA, it requires a client certificate signed by it.
func tlsServer(t *testing.T, ca, clientCA *tlstest.CA) *httptest.Server {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(ca.Server(t, "localhost"))
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if clientCA != nil {
		srv.TLS.ClientCAs = x509.NewCertPool()
		srv.TLS.ClientCAs.AddCert(clientCA.Cert)
		srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
	}
	srv.Config.ErrorLog = quietLog()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// get sends one request to url with o's transport and returns the error,
// explained.
func get(t *testing.T, o *transport.Options, url string) error {
	t.Helper()
	rt, err := o.Transport()
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		return o.Explain(err)
	}
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	return nil
}

// TestServerCertificate: a client trusting the server's CA passes; one
// trusting another CA, or the system's, is refused, and the error says in
// words which CA file was used and what the server presented.
func TestServerCertificate(t *testing.T) {
	t.Parallel()
	ca, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Other CA")
	srv := tlsServer(t, ca, nil)

	require.NoError(t, get(t, &transport.Options{CACert: ca.CertFile}, srv.URL))

	err := get(t, &transport.Options{CACert: other.CertFile}, srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x509: certificate signed by unknown authority")
	assert.Contains(t, err.Error(), `the target presented a certificate for "CN=localhost" issued by "CN=Test CA", which the CA of --ca-cert `+
		other.CertFile+` ("CN=Other CA") did not sign: give --ca-cert the CA that issued the target's certificate`)

	err = get(t, &transport.Options{}, srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `issued by "CN=Test CA", which no CA this system trusts signed: give that CA with --ca-cert FILE`)

	insecure := &transport.Options{InsecureSkipVerify: true}
	assert.NoError(t, get(t, insecure, srv.URL))
}

// TestServerName: a certificate for other names is explained with the
// names it is valid for.
func TestServerName(t *testing.T) {
	t.Parallel()
	ca := tlstest.NewCA(t, "Test CA")
	srv := tlsServer(t, ca, nil)
	o := &transport.Options{CACert: ca.CertFile}
	cfg, err := o.TLSConfig()
	require.NoError(t, err)
	cfg.ServerName = "partner-api.example.com"
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}).Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	assert.Contains(t, o.Explain(err).Error(), `valid for localhost, 127.0.0.1, ::1, not for "partner-api.example.com": use a target URL with one of those names`)
}

// TestClientCertificate: a server that requires a client certificate
// refuses a client without one, and one signed by another CA, each with a
// sentence; a certificate of its client CA passes.
func TestClientCertificate(t *testing.T) {
	t.Parallel()
	ca, clients, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Client CA"), tlstest.NewCA(t, "Other CA")
	srv := tlsServer(t, ca, clients)

	err := get(t, &transport.Options{CACert: ca.CertFile}, srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the target asks for a client certificate (mutual TLS): give --client-cert FILE --client-key FILE")

	cert, key := other.Client(t, "stranger")
	err = get(t, &transport.Options{CACert: ca.CertFile, ClientCert: cert, ClientKey: key}, srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the target refused the client certificate of --client-cert "+cert+` (for "CN=stranger", issued by "CN=Other CA")`)

	cert, key = clients.Client(t, "partner")
	assert.NoError(t, get(t, &transport.Options{CACert: ca.CertFile, ClientCert: cert, ClientKey: key}, srv.URL))
}

// TestPlainHTTPTarget: https:// to a server that speaks plain HTTP says so.
func TestPlainHTTPTarget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	err := get(t, &transport.Options{}, "https://"+srv.Listener.Addr().String())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the target does not speak TLS at that address")
}

func TestExplainLeavesOtherErrors(t *testing.T) {
	t.Parallel()
	o := &transport.Options{}
	assert.NoError(t, o.Explain(nil))
	err := http.ErrHandlerTimeout
	assert.Same(t, err, o.Explain(err))
}
