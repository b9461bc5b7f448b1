package loadtest_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/nginxtest"
	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
)

// TestBehindNginx runs the load tester against the reference behind a
// real nginx (skipped, saying why, without one): its answers are told
// apart from the API's.
//
//   - nginx throttling with its default limit_req answer (503, an HTML
//     page, no Retry-After) at a rate far above its limit: the answers are
//     mostly the gateway's, so the attack stops early and the run is
//     INCOMPLETE, saying which gateway answered what and what to change,
//     with no contract violation nor server error blamed on the API;
//   - nginx over HTTPS requiring a client certificate the run does not
//     present (it answers 400 in HTML after the handshake), or a header
//     of its own (403): the preflight refuses the run with the page's
//     title and the flag to give; with them, the run passes.
func TestBehindNginx(t *testing.T) {
	t.Parallel()
	nginxtest.Bin(t)
	t.Run("throttling without Retry-After", func(t *testing.T) {
		t.Parallel()
		api := startReference(t)
		g := nginxtest.Start(t, nginxtest.Config{Upstream: api.BaseURL, Rate: 5, Burst: 5})
		_, rep := run(t, behind(api, g.URL), loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, 2*time.Second)))
		out := text(t, rep)
		assert.False(t, rep.Passed, out)
		require.NotEmpty(t, rep.Incomplete, out)
		assert.Regexp(t, `^a gateway answered [0-9]+ of [0-9]+ requests, not the API: 503 Service Temporarily Unavailable \(Server: nginx/[0-9.]+\): `+
			`throttling without Retry-After\? lower --rate, or have the gateway answer 429 with Retry-After`, rep.Incomplete)
		assert.True(t, strings.HasPrefix(out, "Load test "+rep.RunID+" — scenario create against "+g.URL+"\nINCOMPLETE: a gateway answered "), out)
		assert.Positive(t, rep.Generator.GatewayStopAfter, "the attack stopped early")
		assert.Less(t, rep.Generator.Sent, rep.Generator.Planned, out)
		assert.Positive(t, rep.Gateway, out)
		assert.Zero(t, rep.Contract.Violations, "nothing blamed on the API: %s", out)
		assert.Zero(t, rep.ServerErrors, out)
		assert.Nil(t, rep.Reconciliation, "nothing the look-ups would read is the API's either")
		require.NotEmpty(t, rep.Findings)
		assert.Equal(t, "gateway", rep.Findings[0].Class)
		assert.Equal(t, 503, rep.Findings[0].Exhibit.Status)
		assert.Contains(t, rep.Findings[0].Exhibit.Answer, "<title>503 Service Temporarily Unavailable</title>")
	})
	ca, clients := tlstest.NewCA(t, "Gateway CA"), tlstest.NewCA(t, "Client CA")
	cert, key := ca.Server(t, "gateway")
	partnerCert, partnerKey := clients.Client(t, "partner")
	for _, tc := range []struct {
		name      string
		config    nginxtest.Config
		without   transport.Options
		with      transport.Options
		title     string
		suggested string
	}{
		{"a client certificate", nginxtest.Config{CertFile: cert, KeyFile: key, ClientCA: clients.CertFile},
			transport.Options{CACert: ca.CertFile}, transport.Options{CACert: ca.CertFile, ClientCert: partnerCert, ClientKey: partnerKey},
			"400 No required SSL certificate was sent", "give --client-cert FILE --client-key FILE"},
		{"a header of its own", nginxtest.Config{HeaderName: "X-Gateway-Key", HeaderValue: "abc"},
			transport.Options{}, transport.Options{Headers: http.Header{"X-Gateway-Key": {"abc"}}},
			"403 Forbidden", "-H 'Name: value'"},
	} {
		t.Run("wants "+tc.name, func(t *testing.T) {
			t.Parallel()
			api := startReference(t) // its own: a run reconciles its accounts' wallets
			c := tc.config
			c.Upstream = api.BaseURL
			g := nginxtest.Start(t, c)
			p := behind(api, g.URL)
			_, err := newTester(p, loadtest.WithConn(tc.without)).Run(t.Context(), t.TempDir())
			require.Error(t, err)
			assert.True(t, errors.Is(err, contract.ErrGateway), "%v", err)
			assert.Regexp(t, `^preflight: GET \S+: a gateway answered `+tc.title+` \(Server: nginx/[0-9.]+\), not the API: `, err.Error())
			assert.Contains(t, err.Error(), tc.suggested)
			assert.NotContains(t, err.Error(), "is --target the API's base URL?")

			_, rep := run(t, p, loadtest.WithConn(tc.with), loadtest.WithLoad(constant(40, 500*time.Millisecond)))
			requireNoFailure(t, rep)
			assert.Zero(t, rep.Gateway)
		})
	}
}

// behind is profile p reached at url, a gateway in front of it.
func behind(p *profiles.Profile, url string) *profiles.Profile {
	q := *p
	q.BaseURL = url
	return &q
}
