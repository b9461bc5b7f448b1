package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
)

// getProfile sends the profile request of partner 1 through a client with
// tlsConfig and returns the status, or the error.
func getProfile(t *testing.T, base string, tlsConfig *tls.Config) (int, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/client/v2/customer/profile", nil)
	require.NoError(t, err)
	req.Header.Set("X-SECRET-KEY", "sk-nusantara-7f3a9c")
	req.Header.Set("Authorization", "Bearer tok-nusantara-funded")
	tr := &http.Transport{TLSClientConfig: tlsConfig}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, resp.Body.Close()
}

// trusting is a client configuration trusting ca, presenting cert if any.
func trusting(ca *tlstest.CA, cert ...tls.Certificate) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return &tls.Config{RootCAs: pool, Certificates: cert, MinVersion: tls.VersionTLS12}
}

// TestRunServesHTTPS: with --tls-cert and --tls-key the reference serves
// HTTPS; a client trusting its CA is answered, one trusting another CA is
// refused, and so is one that offers nothing newer than TLS 1.1.
func TestRunServesHTTPS(t *testing.T) {
	t.Parallel()
	ca, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Other CA")
	cert, key := ca.Server(t, "localhost")
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	defer stop(t, cancel, done)
	require.True(t, strings.HasPrefix(base, "https://"), base)

	code, err := getProfile(t, base, trusting(ca))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)

	_, err = getProfile(t, base, trusting(other))
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknown)

	old := trusting(ca)
	old.MinVersion, old.MaxVersion = tls.VersionTLS10, tls.VersionTLS11 //nolint:gosec // the old versions the server must refuse
	_, err = getProfile(t, base, old)
	assert.ErrorContains(t, err, "protocol version")
}

// TestRunRequiresClientCertificates: with --client-ca every client must
// present a certificate signed by it: one without a certificate, or with
// one of another CA, is refused; one with a certificate of the CA is
// answered.
func TestRunRequiresClientCertificates(t *testing.T) {
	t.Parallel()
	ca, clients, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Client CA"), tlstest.NewCA(t, "Other CA")
	cert, key := ca.Server(t, "localhost")
	base, cancel, done := start(t, "--addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key, "--client-ca", clients.CertFile)
	defer stop(t, cancel, done)

	_, err := getProfile(t, base, trusting(ca))
	assert.ErrorContains(t, err, "tls: certificate required")

	stranger, err := tls.LoadX509KeyPair(other.Client(t, "stranger"))
	require.NoError(t, err)
	_, err = getProfile(t, base, trusting(ca, stranger))
	// Go's client keeps a certificate the server's list of CAs does not
	// name to itself ("certificate required"); others send it ("unknown
	// certificate authority"). Refused either way.
	assert.ErrorContains(t, err, "remote error: tls: ")

	partner, err := tls.LoadX509KeyPair(clients.Client(t, "partner"))
	require.NoError(t, err)
	code, err := getProfile(t, base, trusting(ca, partner))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code)
}

// TestRunBadTLSFilesAreUsageErrors: an unreadable certificate or client CA
// is a usage error (exit 2) naming the flag; nothing is served.
func TestRunBadTLSFilesAreUsageErrors(t *testing.T) {
	t.Parallel()
	ca := tlstest.NewCA(t, "Test CA")
	cert, key := ca.Server(t, "localhost")
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"key of another":     {[]string{"--tls-cert", cert, "--tls-key", ca.CertFile}, "--tls-cert " + cert + " --tls-key " + ca.CertFile + ": tls:"},
		"client CA is a key": {[]string{"--tls-cert", cert, "--tls-key", key, "--client-ca", key}, "--client-ca " + key + ": no certificate in it"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout strings.Builder
			err := run(context.Background(), append([]string{"--addr", "127.0.0.1:0"}, tc.args...), func(string) string { return "" }, &stdout, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, 2, exitCode(err))
			assert.Empty(t, stdout.String(), "something was served")
			assert.False(t, errors.Is(err, context.Canceled))
		})
	}
}
