package transport_test

import (
	"compress/gzip"
	"crypto/tls"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
)

func TestParseHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, name, value, err string
	}{
		{in: "X-Gateway-Key: abc 123 ", name: "X-Gateway-Key", value: "abc 123"},
		{in: "x-tenant:acme", name: "X-Tenant", value: "acme"},
		{in: "X-Empty:", name: "X-Empty", value: ""},
		{in: "Authorization: Bearer x", err: "Authorization cannot be set with -H: the API's own header"},
		{in: "x-secret-key: s", err: "X-Secret-Key cannot be set with -H: the API's own header"},
		{in: "content-type: text/plain", err: "Content-Type cannot be set with -H: the API's own header"},
		{in: "Host: other", err: "Host cannot be set with -H: HTTP sets it"},
		{in: "X-Gateway-Key abc", err: "want 'Name: value'"},
		{in: ": abc", err: "want 'Name: value'"},
		{in: "X Gateway: abc", err: `"X Gateway" is not a header name`},
		{in: "X-Gateway: a\nb", err: "line break"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			name, value, err := transport.ParseHeader(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.name, name)
			assert.Equal(t, tc.value, value)
		})
	}
}

// TestRegister: the flags land in Options, -H and --header add up, a
// refused header is a parse error, and the help names every flag.
func TestRegister(t *testing.T) {
	t.Parallel()
	var o transport.Options
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.Register(fs)
	require.NoError(t, fs.Parse([]string{"--ca-cert", "ca.pem", "--client-cert", "c.pem", "--client-key", "k.pem",
		"-H", "X-A: 1", "--header", "x-a: 2", "-H", "X-B: 3", "--wait-for-target", "30s"}))
	assert.Equal(t, transport.Options{CACert: "ca.pem", ClientCert: "c.pem", ClientKey: "k.pem",
		Headers: http.Header{"X-A": {"1", "2"}, "X-B": {"3"}}, WaitForTarget: 30 * time.Second}, o)

	fs = flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	(&transport.Options{}).Register(fs)
	err := fs.Parse([]string{"-H", "Authorization: Bearer mine"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Authorization cannot be set with -H")

	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	for _, f := range []string{"-ca-cert", "-client-cert", "-client-key", "-insecure-skip-verify\n", "-H 'Name: value'", "-header", "-wait-for-target"} {
		assert.Contains(t, help.String(), f)
	}
}

// TestTLSConfigErrors: every bad flag or file is an error naming the flag
// and the file.
func TestTLSConfigErrors(t *testing.T) {
	t.Parallel()
	ca := tlstest.NewCA(t, "Test CA")
	cert, key := ca.Client(t, "client")
	_, otherKey := ca.Client(t, "other")
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		name string
		o    transport.Options
		want string
	}{
		{"missing CA file", transport.Options{CACert: missing}, "--ca-cert " + missing + ": open " + missing + ": no such file"},
		{"CA file without PEM", transport.Options{CACert: notPEM}, "--ca-cert " + notPEM + ": no certificate in it"},
		{"CA file is a key", transport.Options{CACert: key}, "--ca-cert " + key + ": no certificate in it"},
		{"certificate without key", transport.Options{ClientCert: cert}, "--client-cert and --client-key go together"},
		{"key without certificate", transport.Options{ClientKey: key}, "--client-cert and --client-key go together"},
		{"key of another certificate", transport.Options{ClientCert: cert, ClientKey: otherKey}, "--client-cert " + cert + " --client-key " + otherKey + ": tls: private key does not match public key"},
		{"missing key file", transport.Options{ClientCert: cert, ClientKey: missing}, "no such file"},
		{"insecure and a CA", transport.Options{CACert: ca.CertFile, InsecureSkipVerify: true}, "give one of them"},
		{"negative wait", transport.Options{WaitForTarget: -time.Second}, "--wait-for-target -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tc.o.TLSConfig()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			_, err = tc.o.Transport()
			assert.Error(t, err)
		})
	}
	cfg, err := (&transport.Options{CACert: ca.CertFile, ClientCert: cert, ClientKey: key}).TLSConfig()
	require.NoError(t, err)
	assert.Equal(t, uint16(tls.VersionTLS12), cfg.MinVersion)
	assert.Len(t, cfg.Certificates, 1)
	assert.NotNil(t, cfg.RootCAs)
}

// TestHeaders: every request carries the headers of -H, replacing what it
// had under their names, and the caller's request is left as it was.
func TestHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Join(r.Header.Values("X-Gateway"), ",")+"|"+r.Header.Get("X-Other"))
	}))
	defer srv.Close()
	o := transport.Options{Headers: http.Header{"X-Gateway": {"a", "b"}}}
	rt, err := o.Transport()
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("X-Gateway", "mine")
	req.Header.Set("X-Other", "kept")
	resp, err := (&http.Client{Transport: rt}).Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	assert.Equal(t, "a,b|kept", string(body))
	assert.Equal(t, "mine", req.Header.Get("X-Gateway"), "the caller's request changed")

	plain := http.DefaultTransport
	assert.Same(t, plain, (&transport.Options{}).Wrap(plain), "no header, no wrapper")
}

// TestACompressedAnswerIsReadAsJSON: a user's -H 'Accept-Encoding: gzip'
// (behind a gateway that compresses) makes net/http leave the answer
// compressed; the run reads it decompressed all the same, as the target
// meant it. Before, the body read was "\x1f\x8b…".
func TestACompressedAnswerIsReadAsJSON(t *testing.T) {
	t.Parallel()
	const doc = `{"status":true,"message":"Berhasil"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = io.WriteString(w, doc)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, doc)
		_ = zw.Close()
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name    string
		headers http.Header
	}{{"asked by the user", http.Header{"Accept-Encoding": {"gzip"}}}, {"asked by the user with another header", http.Header{"Accept-Encoding": {"gzip, deflate"}, "X-Gateway": {"k"}}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := transport.Options{Headers: tc.headers}
			rt, err := o.Transport()
			require.NoError(t, err)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
			require.NoError(t, err)
			resp, err := (&http.Client{Transport: rt}).Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, resp.Body.Close())
			require.NoError(t, err)
			assert.JSONEq(t, doc, string(body))
			assert.Empty(t, resp.Header.Get("Content-Encoding"), "the body read is no longer gzip")
		})
	}
}

func TestWarning(t *testing.T) {
	t.Parallel()
	assert.Empty(t, (&transport.Options{}).Warning())
	assert.Contains(t, (&transport.Options{InsecureSkipVerify: true}).Warning(), "not verified")
}

// TestArgs: the flags that give the TLS of a run again name its files and
// --insecure-skip-verify, never a header of -H.
func TestArgs(t *testing.T) {
	t.Parallel()
	assert.Empty(t, (&transport.Options{}).Args())
	o := &transport.Options{CACert: "ca.pem", ClientCert: "c.pem", ClientKey: "k.pem", Headers: http.Header{"X-Gateway-Key": {"gw-secret"}}}
	assert.Equal(t, []string{"--ca-cert", "ca.pem", "--client-cert", "c.pem", "--client-key", "k.pem"}, o.Args())
	assert.Equal(t, []string{"--insecure-skip-verify"}, (&transport.Options{InsecureSkipVerify: true}).Args())
}
