package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/reference/referencetest"
	"github.com/partnercommerce/conformance/steps/report"
	"github.com/partnercommerce/conformance/verdict"
)

// throttlingPage is how a run says nginx's default answer to a request
// over its limit_req: its page, not the API's, and what to change.
var throttlingPage = regexp.MustCompile(`a gateway answered 503 Service Temporarily Unavailable \(Server: nginx/[0-9.]+\), not the API: ` +
	regexp.QuoteMeta("throttling without Retry-After? lower --rate, or have the gateway answer 429 with Retry-After"))

// TestBehindNginx runs the conformance run (every judge) and the generated
// mode against the reference behind a real nginx (skipped, saying why,
// without one), each with a reference of its own:
//
//   - nginx throttling far below the run's pace, with its default answer
//     (503, an HTML page, no Retry-After): the run is INCOMPLETE, exit 2,
//     saying which gateway answered and what to change; nothing is blamed
//     on the API (no scenario, property or probe case fails), the
//     conformance run stops once most answers are the gateway's, and the
//     generated mode writes no reproduction;
//   - nginx over HTTPS requiring a client certificate (it answers 400 in
//     HTML after the handshake), or a header of its own (403): without
//     them, the preflight of both says the gateway's title and the flag to
//     give, exit 2; with them, both pass.
func TestBehindNginx(t *testing.T) {
	t.Parallel()
	nginxtest.Bin(t)
	profile := writeFile(t, referenceProfile(t))
	t.Run("throttling without Retry-After/every judge", func(t *testing.T) {
		t.Parallel()
		g := nginxtest.Start(t, nginxtest.Config{Upstream: httpapitest.NewServer(t).URL, Rate: 5, Burst: 5})
		dir := t.TempDir()
		stdout, stderr := runCode(t, exitIncomplete, []string{"--target", g.URL, "--profile", profile, "--format", "progress", "--report-dir", dir}, noEnv)
		assert.Regexp(t, `\nRESULT: INCOMPLETE: a gateway answered [0-9]+ of [0-9]+ requests, not the API: 503 Service Temporarily Unavailable \(Server: nginx/[0-9.]+\): throttling without Retry-After\?.*, 0 failed,`, stdout)
		assert.Regexp(t, `^conformance: INCOMPLETE: a gateway answered [0-9]+ of [0-9]+ requests, not the API: `, stderr)
		assert.NotContains(t, stdout, "not JSON", "no answer of the gateway's is blamed on the API")
		var sum report.Summary
		readJSON(t, filepath.Join(dir, "summary.json"), &sum)
		assert.Zero(t, sum.Totals.Failed)
		require.NotNil(t, sum.Stopped)
		assert.Equal(t, verdict.StopGateway, sum.Stopped.Cause)
		assert.Positive(t, sum.Stopped.NotRun, "the run stopped early")
		require.NotEmpty(t, sum.NotJudgedGroups)
		assert.Regexp(t, throttlingPage, sum.NotJudgedGroups[0].Headline)
		for _, j := range sum.Judges[1:] {
			assert.Equal(t, verdict.JudgeNotRun, j.State, "%s: the judges after the scenarios are not asked", j.Name)
		}
	})
	t.Run("throttling without Retry-After/generated mode", func(t *testing.T) {
		t.Parallel()
		g := nginxtest.Start(t, nginxtest.Config{Upstream: httpapitest.NewServer(t).URL, Rate: 5, Burst: 30})
		dir := t.TempDir()
		stdout, _ := runCode(t, exitIncomplete, []string{"generate", "--target", g.URL, "--profile", profile, "--examples", "10", "--seed", "1", "--report-dir", dir}, noEnv)
		assert.Regexp(t, `\nINCOMPLETE: [0-9]+ properties not judged: `+throttlingPage.String(), stdout)
		assert.NotContains(t, stdout, "FAIL")
		assert.NotContains(t, stdout, "curl", "no reproduction of a gateway's page")
		features, err := filepath.Glob(filepath.Join(dir, "generated-*.feature"))
		require.NoError(t, err)
		assert.Empty(t, features)
		var res generative.Result
		readJSON(t, filepath.Join(dir, generative.SummaryFile), &res)
		assert.Zero(t, res.Failed())
		require.Positive(t, res.NotJudged())
		for _, p := range res.Properties {
			if p.Status == verdict.StatusNotJudged {
				require.NotNil(t, p.Gateway, p.Name())
				assert.Equal(t, 503, p.Gateway.Status)
				assert.Empty(t, p.Reproduction, p.Name())
			}
		}
	})

	ca, clients := tlstest.NewCA(t, "Gateway CA"), tlstest.NewCA(t, "Client CA")
	cert, key := ca.Server(t, "gateway")
	partnerCert, partnerKey := clients.Client(t, "partner")
	for _, tc := range []struct {
		name          string
		config        nginxtest.Config
		without, with []string
		title, advice string
	}{
		{"a client certificate", nginxtest.Config{CertFile: cert, KeyFile: key, ClientCA: clients.CertFile},
			[]string{"--ca-cert", ca.CertFile}, []string{"--ca-cert", ca.CertFile, "--client-cert", partnerCert, "--client-key", partnerKey},
			"400 No required SSL certificate was sent", "the gateway wants a client certificate it trusts: give --client-cert FILE --client-key FILE"},
		{"a header of its own", nginxtest.Config{HeaderName: "X-Gateway-Key", HeaderValue: "abc"},
			nil, []string{"-H", "X-Gateway-Key: abc"},
			"403 Forbidden", "does it want a header of its own (-H 'Name: value')"},
	} {
		for mode, args := range smallRuns(profile) {
			t.Run("wants "+tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				c := tc.config
				c.Upstream = httpapitest.NewServer(t).URL
				g := nginxtest.Start(t, c)
				args := append(append([]string{}, args...), "--target", g.URL)
				_, stderr := runCode(t, exitUsage, append(args, tc.without...), noEnv)
				assert.Regexp(t, `preflight: GET `+regexp.QuoteMeta(g.URL)+`/client/v2/customer/profile: a gateway answered `+tc.title+` \(Server: nginx/[0-9.]+\), not the API: `, stderr)
				assert.Contains(t, stderr, tc.advice)
				assert.NotContains(t, stderr, "is --target the API's base URL?")
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one message:\n%s", stderr)
				runCode(t, exitPass, append(args, tc.with...), noEnv)
			})
		}
	}
}

// TestACorrectServerPassesBehindNginx: a correct server passes behind a
// real nginx that throttles with 503 and Retry-After (a throttle the run
// waits out, at the pace the gateway allows, however long it takes: no
// budget cuts a judge), and behind nginx's gzip with -H 'Accept-Encoding:
// gzip' (the answers read decompressed). Before, the first was INCOMPLETE
// when the default one-minute budget cut a property, and the second
// failed the preflight on "\x1f\x8b…".
func TestACorrectServerPassesBehindNginx(t *testing.T) {
	t.Parallel()
	nginxtest.Bin(t)
	profile := writeFile(t, referenceProfile(t))
	for _, tc := range []struct {
		name   string
		config nginxtest.Config
		args   []string
	}{
		{"throttling with 503 and Retry-After", nginxtest.Config{Rate: 200, Burst: 10, RetryAfter: 1}, nil},
		{"gzip asked for with -H", nginxtest.Config{Gzip: true}, []string{"-H", "Accept-Encoding: gzip"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.config.Upstream = httpapitest.NewServer(t).URL
			g := nginxtest.Start(t, tc.config)
			if tc.config.Gzip {
				// The double changes what the run reads: nginx does
				// compress the API's JSON for a client that asks.
				req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, g.URL+"/client/v2/payment/methods", nil)
				require.NoError(t, err)
				req.Header.Set("Accept-Encoding", "gzip")
				req.Header.Set("X-SECRET-KEY", referencetest.KeyNusantara)
				req.Header.Set("Authorization", "Bearer "+referencetest.TokMain)
				resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), "nginx compressed the answer")
			}
			args := append([]string{"--target", g.URL, "--profile", profile, "--format", "progress", "--examples", "5", "--report-dir", t.TempDir()}, tc.args...)
			stdout, _ := runCode(t, exitPass, args, noEnv)
			assert.Regexp(t, `\nRESULT: PASS: `, stdout)
			if tc.config.RetryAfter > 0 {
				assert.Regexp(t, `throttl`, stdout, "the run says the target throttled it")
			}
		})
	}
}
