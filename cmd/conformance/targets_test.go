package main

import (
	"bytes"
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// tlsReference serves the reference over HTTPS with a certificate of ca
// and, with clients, requires client certificates signed by it, as
// `reference --tls-cert --tls-key [--client-ca]` does; it returns its URL.
func tlsReference(t *testing.T, ca, clients *tlstest.CA, faults ...reference.Fault) string {
	t.Helper()
	cert, key := ca.Server(t, "localhost")
	clientCA := ""
	if clients != nil {
		clientCA = clients.CertFile
	}
	cfg, err := httpapi.ServerTLS(cert, key, clientCA)
	require.NoError(t, err)
	return httpapitest.NewTLSServer(t, cfg, faults...).URL
}

// runCode runs the command and requires exit code want, showing its output
// when it is another.
func runCode(t *testing.T, want int, args []string, getenv func(string) string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, getenv, &out, &errOut)
	require.Equal(t, want, code, "conformance %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out.String(), errOut.String())
	return out.String(), errOut.String()
}

// smallRuns are the arguments of a short run of the suite (one tag) and of
// the generated mode (one operation), with profile and no target.
func smallRuns(profile string) map[string][]string {
	return map[string][]string{
		"suite":    {"--profile", profile, "--tags", "@payment-methods", "--format", "progress"},
		"generate": {"generate", "--profile", profile, "--examples", "3", "--only", "listPaymentMethods"},
	}
}

// TestSuiteAndGenerateOverTLS: the suite and the generated mode test the
// reference over HTTPS with a CA made here, with and without mutual TLS; a
// wrong CA, or no client certificate where one is required, is refused
// by the preflight with a sentence saying what to change, exit 2.
func TestSuiteAndGenerateOverTLS(t *testing.T) {
	t.Parallel()
	ca, clients, other := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Client CA"), tlstest.NewCA(t, "Other CA")
	plain, mutual := tlsReference(t, ca, nil), tlsReference(t, ca, clients)
	clientCert, clientKey := clients.Client(t, "partner")
	runs := smallRuns(writeFile(t, referenceProfile(t)))
	cases := []struct {
		name, target string
		args         []string
		code         int
		says         string
	}{
		{"private CA", plain, []string{"--ca-cert", ca.CertFile}, exitPass, ""},
		{"mutual TLS", mutual, []string{"--ca-cert", ca.CertFile, "--client-cert", clientCert, "--client-key", clientKey}, exitPass, ""},
		{"wrong CA", plain, []string{"--ca-cert", other.CertFile}, exitUsage,
			`/client/v2/customer/profile": tls: failed to verify certificate: x509: certificate signed by unknown authority; the target presented a certificate for "CN=localhost" issued by "CN=Test CA", which the CA of --ca-cert ` +
				other.CertFile + ` ("CN=Other CA") did not sign: give --ca-cert the CA that issued the target's certificate`},
		{"no client certificate", mutual, []string{"--ca-cert", ca.CertFile}, exitUsage,
			"the target asks for a client certificate (mutual TLS): give --client-cert FILE --client-key FILE"},
	}
	for _, tc := range cases {
		for mode, args := range runs {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				args := append(append(append([]string{}, args...), "--target", tc.target), tc.args...)
				stdout, stderr := runCode(t, tc.code, args, noEnv)
				if tc.code == exitPass {
					assert.NotContains(t, stdout+stderr, "INSECURE")
					return
				}
				assert.Contains(t, stderr, "preflight: GET "+tc.target+"/client/v2/customer/profile: ")
				assert.Contains(t, stderr, tc.says)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one message:\n%s", stderr)
			})
		}
	}
}

// TestGeneratedReproductionKeepsTheTLSFlags: the commands a failure of the
// generated mode prints to run it again over TLS carry --ca-cert, and the
// feature file's command fails against the faulty target as printed.
func TestGeneratedReproductionKeepsTheTLSFlags(t *testing.T) {
	t.Parallel()
	ca := tlstest.NewCA(t, "Repro-CA")
	url := tlsReference(t, ca, nil, reference.FaultNoShiftCodeLimit)
	profile, dir := writeFile(t, referenceProfile(t)), t.TempDir()
	stdout, _ := runCode(t, exitFail, []string{"generate", "--target", url, "--profile", profile, "--ca-cert", ca.CertFile,
		"--seed", "5", "--only", "CreatePayment: requests that break", "--report-dir", dir}, noEnv)
	assert.Contains(t, stdout, "conformance generate --target "+url+" --profile "+profile+" --ca-cert "+ca.CertFile+" --seed 5 --only ")
	feature := filepath.Join(dir, "generated-1.feature")
	run := "conformance --target " + url + " --profile " + profile + " --ca-cert " + ca.CertFile + " " + feature
	require.Contains(t, stdout, "run it: "+run+"\n")
	runCode(t, exitFail, strings.Fields(run)[1:], noEnv)
}

// TestInsecureSkipVerifyIsLoud: --insecure-skip-verify reaches a target
// whose CA is not given, and says so on the console before and after the
// run, in summary.json and on the HTML page, and in the generated mode's
// summary.
func TestInsecureSkipVerifyIsLoud(t *testing.T) {
	t.Parallel()
	url := tlsReference(t, tlstest.NewCA(t, "Test CA"), nil)
	profile := writeFile(t, referenceProfile(t))
	const loud = "INSECURE: --insecure-skip-verify: the target's certificate was not verified"

	dir := t.TempDir()
	stdout, stderr := runCode(t, exitPass, []string{"--target", url, "--profile", profile, "--tags", "@payment-methods",
		"--format", "progress", "--report-dir", dir, "--insecure-skip-verify"}, noEnv)
	assert.Contains(t, stderr, "conformance: "+loud)
	assert.Contains(t, stdout, "\n"+loud)
	for _, file := range []string{"summary.json", "report.html"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		require.NoError(t, err)
		assert.True(t, strings.Contains(html.UnescapeString(string(data)), loud), "%s does not say %q", file, loud)
	}

	dir = t.TempDir()
	stdout, stderr = runCode(t, exitPass, []string{"generate", "--target", url, "--profile", profile, "--examples", "3",
		"--only", "listPaymentMethods", "--report-dir", dir, "--insecure-skip-verify"}, noEnv)
	assert.Contains(t, stderr, "conformance generate: "+loud)
	assert.Contains(t, stdout, "\n"+loud)
	data, err := os.ReadFile(filepath.Join(dir, "generated-summary.json"))
	require.NoError(t, err)
	assert.Contains(t, string(data), loud)
}

// TestWaitForTarget: with --wait-for-target the suite and the generated
// mode wait for a server that starts two seconds after them, and pass; for
// one that never starts they give up when the time is over, exit 2 with
// the last reason.
func TestWaitForTarget(t *testing.T) {
	t.Parallel()
	for mode, args := range smallRuns(writeFile(t, referenceProfile(t))) {
		t.Run(mode+"/late server", func(t *testing.T) {
			t.Parallel()
			url := httpapitest.NewLateServer(t, 2*time.Second)
			begin := time.Now()
			runCode(t, exitPass, append(args, "--target", url, "--wait-for-target", "30s"), noEnv)
			assert.GreaterOrEqual(t, time.Since(begin), 2*time.Second, "it waited for the server")
		})
		t.Run(mode+"/never", func(t *testing.T) {
			t.Parallel()
			_, stderr := runCode(t, exitUsage, append(args, "--target", "http://127.0.0.1:1", "--wait-for-target", "1500ms"), noEnv)
			assert.Contains(t, stderr, "the target did not pass the preflight check within --wait-for-target 1.5s (")
			assert.Contains(t, stderr, "tries); the last: the target cannot be tested: preflight: GET http://")
			assert.Contains(t, stderr, "the target refused the connection (is the server running at that address?)")
		})
	}
}

// TestHeadersReachTheServer: each -H is on every request of the suite and
// of the generated mode, beside the API's own headers.
func TestHeadersReachTheServer(t *testing.T) {
	t.Parallel()
	for mode, args := range smallRuns(writeFile(t, referenceProfile(t))) {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ref := httpapitest.NewServer(t).Config.Handler
			var with, without atomic.Int64
			gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Gateway-Key") == "gw-123" && r.Header.Get("X-Route") == "staging" && r.Header.Get("X-Secret-Key") != "" {
					with.Add(1)
				} else {
					without.Add(1)
				}
				ref.ServeHTTP(w, r)
			}))
			t.Cleanup(gateway.Close)
			runCode(t, exitPass, append(args, "--target", gateway.URL, "-H", "X-Gateway-Key: gw-123", "--header", "x-route:staging"), noEnv)
			assert.Positive(t, with.Load())
			assert.Zero(t, without.Load(), "requests without the headers")
		})
	}
	_, stderr := runCode(t, exitUsage, []string{"-H", "Authorization: Bearer x"}, noEnv)
	assert.Contains(t, stderr, "Authorization cannot be set with -H")
}

// TestProfileSecretsFromTheEnvironment: a profile's ${NAME} values come
// from the environment the command is given; the reports show them masked,
// as any secret; a variable that is not set is exit 2 naming it.
func TestProfileSecretsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	text := strings.Replace(referenceProfile(t), "sk-nusantara-7f3a9c", "${PARTNER_SECRET_KEY}", 1)
	require.Contains(t, text, "${PARTNER_SECRET_KEY}")
	profile := writeFile(t, text)
	url := faultyReference(t)
	env := func(name string) string {
		if name == "PARTNER_SECRET_KEY" {
			return "sk-nusantara-7f3a9c"
		}
		return ""
	}
	dir := t.TempDir()
	runCode(t, exitPass, []string{"--target", url, "--profile", profile, "--tags", "@payment-methods", "--format", "progress", "--report-dir", dir}, env)
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), "<b>secret_key</b> <code>sk-n********</code>"), "report.html shows the key masked")
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(data), "sk-nusantara-7f3a9c"), "%s holds the secret", f.Name())
	}

	for _, mode := range [][]string{nil, {"generate"}} {
		_, stderr := runCode(t, exitUsage, append(mode, "--target", url, "--profile", profile), noEnv)
		assert.Contains(t, stderr, profile+": profile: secret_key: ${PARTNER_SECRET_KEY}: the environment variable PARTNER_SECRET_KEY is not set, or is empty")
	}
}
