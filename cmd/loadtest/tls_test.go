package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// tlsReference serves the reference over TLS with a certificate of a CA
// made for the test, and returns its URL and that CA.
func tlsReference(t *testing.T) (string, *tlstest.CA) {
	t.Helper()
	ca := tlstest.NewCA(t, "Test CA")
	cert, key := ca.Server(t, "localhost")
	cfg, err := httpapi.ServerTLS(cert, key, "")
	require.NoError(t, err)
	srv := httpapitest.NewTLSServer(t, cfg)
	return srv.URL, ca
}

// TestWrongCAExitsAtPreflight: a target whose certificate the CA of
// --ca-cert did not sign is a run that cannot be carried out (exit 2),
// refused at the preflight with what to change, before any output.
func TestWrongCAExitsAtPreflight(t *testing.T) {
	t.Parallel()
	url, _ := tlsReference(t)
	other := tlstest.NewCA(t, "Other CA")
	dir := t.TempDir()
	_, _, err := runCLI(t, "--target", url, "--ca-cert", other.CertFile, "--rate", "20", "--duration", "500ms", "--quiet", "--out", dir)
	require.Error(t, err)
	assert.False(t, errors.Is(err, errFailed) || errors.Is(err, errInterrupted), "not exit 2: %v", err)
	assert.Contains(t, err.Error(), "preflight: ")
	assert.Contains(t, err.Error(), "did not sign: give --ca-cert the CA that issued the target's certificate")
	assert.NoFileExists(t, filepath.Join(dir, "results.bin"))
}

// TestInsecureSkipVerifyIsLoud: a run that did not verify the target's
// certificate passes, and says INSECURE on the console, in report.json,
// report.txt and report.html.
func TestInsecureSkipVerifyIsLoud(t *testing.T) {
	t.Parallel()
	url, _ := tlsReference(t)
	dir := t.TempDir()
	out, stderr, err := runCLI(t, "--target", url, "--insecure-skip-verify", "--scenario", "create", "--rate", "20", "--duration", "500ms", "--quiet", "--out", dir)
	requireNoFailure(t, out, stderr, err)
	const loud = "INSECURE: --insecure-skip-verify: the target" // (the page escapes the apostrophe after it)
	assert.Contains(t, stderr, loud)
	assert.Contains(t, out, loud)
	for _, f := range []string{"report.json", "report.txt", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Contains(t, string(b), loud, f)
	}
}
