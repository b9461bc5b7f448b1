package loadtest_test

import (
	"crypto/tls"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// gateway answers 403 to a request without the header X-Gateway-Key: abc,
// as a gateway in front of a target may, and counts them in refused.
func gateway(next http.Handler, refused *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Gateway-Key") != "abc" {
			refused.Add(1)
			http.Error(w, `{"status":false,"message":"gateway"}`, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tlsReference serves h over TLS with a certificate of ca for 127.0.0.1;
// with clientCA, it requires a client certificate signed by it.
func tlsReference(t *testing.T, h http.Handler, ca, clientCA *tlstest.CA) *profiles.Profile {
	t.Helper()
	cert, key := ca.Server(t, "localhost")
	clients := ""
	if clientCA != nil {
		clients = clientCA.CertFile
	}
	cfg, err := httpapi.ServerTLS(cert, key, clients)
	require.NoError(t, err)
	srv := httpapitest.ServeTLS(t, h, cfg)
	return profiles.Reference(srv.URL)
}

// TestRunOverTLS: a short run against the reference over HTTPS with a CA
// made in the test, with and without mutual TLS, behind a gateway that
// wants its own header (-H): every request reaches the reference, and the
// run passes.
func TestRunOverTLS(t *testing.T) {
	t.Parallel()
	for _, mutual := range []bool{false, true} {
		name := map[bool]string{false: "server certificate", true: "mutual TLS"}[mutual]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ca := tlstest.NewCA(t, "Test CA")
			conn := transport.Options{CACert: ca.CertFile, Headers: http.Header{"X-Gateway-Key": {"abc"}}}
			var clients *tlstest.CA
			if mutual {
				clients = tlstest.NewCA(t, "Client CA")
				conn.ClientCert, conn.ClientKey = clients.Client(t, "partner")
			}
			var refused atomic.Int64
			p := tlsReference(t, gateway(httpapitest.Handler(t), &refused), ca, clients)
			_, rep := run(t, p, loadtest.WithLoad(constant(40, time.Second)), loadtest.WithConn(conn))
			requireNoFailure(t, rep)
			assert.Positive(t, rep.Requests)
			require.NotNil(t, rep.Reconciliation)
			assert.Positive(t, rep.Reconciliation.Created, text(t, rep))
			assert.Zero(t, refused.Load(), "requests without the header of -H")
			assert.Empty(t, rep.Insecure)
		})
	}
}

// TestWrongCAIsRefusedAtPreflight: a target whose certificate the CA of
// --ca-cert did not sign is refused before anything is sent, with what to
// change; a target asking for a client certificate the run lacks too.
func TestWrongCAIsRefusedAtPreflight(t *testing.T) {
	t.Parallel()
	ca, other, clients := tlstest.NewCA(t, "Test CA"), tlstest.NewCA(t, "Other CA"), tlstest.NewCA(t, "Client CA")
	var refused atomic.Int64
	for _, tc := range []struct {
		name     string
		clientCA *tlstest.CA
		conn     transport.Options
		want     string
	}{
		{"wrong CA", nil, transport.Options{CACert: other.CertFile},
			`which the CA of --ca-cert ` + other.CertFile + ` ("CN=Other CA") did not sign: give --ca-cert the CA that issued the target's certificate`},
		{"no client certificate", clients, transport.Options{CACert: ca.CertFile},
			"the target asks for a client certificate (mutual TLS): give --client-cert FILE --client-key FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tlsReference(t, gateway(httpapitest.Handler(t), &refused), ca, tc.clientCA)
			_, err := newTester(p, loadtest.WithConn(tc.conn)).Run(t.Context(), t.TempDir())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "preflight: ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	assert.Zero(t, refused.Load(), "a request reached the target")
}

// TestWaitForTarget: with --wait-for-target the run waits for a target
// that starts listening two seconds late, and passes; without it, the run
// is refused at once; a wait that runs out says so with the last reason.
func TestWaitForTarget(t *testing.T) {
	t.Parallel()
	began := time.Now()
	url := httpapitest.NewLateServer(t, 2*time.Second)
	p := profiles.Reference(url)

	_, err := newTester(p).Run(t.Context(), t.TempDir())
	require.Error(t, err, "the target answered before it started")
	assert.Contains(t, err.Error(), "preflight: ")
	assert.Contains(t, err.Error(), "connection refused")

	_, err = newTester(p, loadtest.WithConn(transport.Options{WaitForTarget: 300 * time.Millisecond})).Run(t.Context(), t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not pass the preflight check within --wait-for-target 300ms")
	assert.Contains(t, err.Error(), "connection refused")

	_, rep := run(t, p, loadtest.WithLoad(constant(40, time.Second)), loadtest.WithConn(transport.Options{WaitForTarget: 20 * time.Second}))
	requireNoFailure(t, rep)
	assert.GreaterOrEqual(t, rep.Began.Sub(began), 2*time.Second, "the attack began before the target listened")
}

// TestASlowHandshakeDoesNotFailThePreflight: the preflight, the run's first
// request, waits at least 10 s for its answer whatever --timeout, the
// connection it opens included: a target whose first TLS handshake takes
// half a second (a loaded machine's, or a far target's) is not refused at
// the preflight by a --timeout of 100 ms. Its dial and handshake were
// bounded by --timeout, and on a loaded machine TestUncertainAnswersAboveTheLimitFail
// failed with "preflight: dial tcp: i/o timeout".
func TestASlowHandshakeDoesNotFailThePreflight(t *testing.T) {
	t.Parallel()
	ca := tlstest.NewCA(t, "Test CA")
	cert, key := ca.Server(t, "localhost")
	cfg, err := httpapi.ServerTLS(cert, key, "")
	require.NoError(t, err)
	var handshakes atomic.Int64
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		if handshakes.Add(1) == 1 {
			time.Sleep(500 * time.Millisecond) // a slow target: five times the timeout
		}
		return nil, nil
	}
	srv := httpapitest.ServeTLS(t, httpapitest.Handler(t), cfg)
	p := profiles.Reference(srv.URL)
	_, err = newTester(p, loadtest.WithConn(transport.Options{CACert: ca.CertFile}), loadtest.WithTimeout(100*time.Millisecond),
		loadtest.WithLoad(constant(10, 100*time.Millisecond)), loadtest.WithReconcile(false)).Run(t.Context(), t.TempDir())
	require.NoError(t, err, "the preflight waited for its handshake")
}
