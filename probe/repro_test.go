package probe_test

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/repro/reprotest"
	"github.com/partnercommerce/conformance/internal/tlstest"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/verdict"
)

// gatewayKey is the header the gateway of TestReproductionRunsAsPrinted
// wants on every request, as a gateway in front of a real server may.
const gatewayKey = "X-Gateway-Key"

// behindGateway serves the reference with faults over HTTPS, signed by
// ca, behind a gateway that answers 403 to a request without the gateway
// key; it returns the profile and the transport options that reach it.
func behindGateway(t *testing.T, ca *tlstest.CA, faults ...reference.Fault) (*profiles.Profile, transport.Options) {
	t.Helper()
	cert, key := ca.Server(t, "reference")
	cfg, err := httpapi.ServerTLS(cert, key, "")
	require.NoError(t, err)
	ref := httpapitest.Handler(t, faults...)
	srv := httpapitest.ServeTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(gatewayKey) != "secret-of-the-gateway" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		ref.ServeHTTP(w, r)
	}), cfg)
	return profiles.Reference(srv.URL), transport.Options{CACert: ca.CertFile, Headers: http.Header{gatewayKey: {"secret-of-the-gateway"}}}
}

// TestReproductionRunsAsPrinted: the reproduction of a failure is a sh
// script that runs as printed, once its variables are set as its first
// lines say: against the server that failed it says DEFECT in the first
// wave (the payments of one partner_trx_id created more than once) and
// exits 1; against a correct one it sends its waves ($TRIES of them), one
// payment created and the rest refused with 409 in each, and says it saw
// no defect. Both servers are behind a TLS gateway that wants a header of
// -H: the script speaks TLS with the CA file and sends the header from its
// variable.
func TestReproductionRunsAsPrinted(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"sh", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the reproduction is a sh script of curl lines", tool)
		}
	}
	ca := tlstest.NewCA(t, "probe-ca")
	faulty, conn := behindGateway(t, ca, reference.FaultDuplicateTrxAccepted)
	opts := short(faulty)
	opts.Conn = conn
	res := run(t, opts)
	c := caseNamed(t, res, "one partner_trx_id")
	require.Equal(t, verdict.StatusFailed, c.Status, c.Reason)
	script := c.Reproduction
	assert.Contains(t, script, "SECRET_KEY to the secret_key of profiles/reference.yaml, FUNDED_CUSTOMER_TOKEN to its funded_customer.token")
	assert.Contains(t, script, "HEADER_X_GATEWAY_KEY to the value of -H 'X-Gateway-Key: …'")
	assert.Contains(t, script, `--cacert "`+conn.CACert+`"`)
	assert.NotContains(t, script, faulty.SecretKey)
	assert.NotContains(t, script, faulty.FundedCustomer.Token)
	assert.NotContains(t, script, "secret-of-the-gateway")

	runScript := func(p *profiles.Profile, tries string) (string, int) {
		t.Helper()
		s := strings.Replace(script, `BASE="`+faulty.BaseURL+`"`, `BASE="`+p.BaseURL+`"`, 1)
		cmd := exec.CommandContext(t.Context(), "sh", "-c", s)
		cmd.Env = append(os.Environ(), "SECRET_KEY="+p.SecretKey, "FUNDED_CUSTOMER_TOKEN="+p.FundedCustomer.Token, "HEADER_X_GATEWAY_KEY=secret-of-the-gateway", "TRIES="+tries)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%v\n%s\n%s", err, s, out)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := runScript(faulty, "")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, fmt.Sprintf("DEFECT in wave 1 of %d: %d payments created with one partner_trx_id\n", probe.DefaultTries, probe.DefaultWaveSize), out)
	assert.Equal(t, probe.DefaultWaveSize, strings.Count(out, contract.MsgCreated), "every payment created again:\n%s", out)

	correct, _ := behindGateway(t, ca)
	out, code = runScript(correct, "2")
	assert.Equal(t, 0, code, out)
	assert.Equal(t, 2, strings.Count(out, contract.MsgCreated), out)
	assert.Equal(t, 2*(probe.DefaultWaveSize-1), strings.Count(out, contract.MsgDuplicate), out)
	assert.Contains(t, out, "no defect seen in 2 waves (a race may need more)")
}

// TestARaceReproducesAsPrinted: for each fault the probe catches, the
// reproduction of the case it fails, run with sh as printed, tries its wave
// until one shows the defect and says so (DEFECT, exit status 1) against a
// fresh faulty reference, the races within its $TRIES; against a fresh
// correct one it says that no wave showed one (three waves here).
func TestARaceReproducesAsPrinted(t *testing.T) {
	t.Parallel()
	reprotest.NeedCurl(t)
	for _, tc := range []struct {
		fault    reference.Fault
		caseName string
		defect   string // what the DEFECT line says after "DEFECT in wave N of 20: "
	}{
		{reference.FaultRacyDuplicateCheck, "with one partner_trx_id", "payments created with one partner_trx_id"},
		{reference.FaultDuplicateTrxAccepted, "with one partner_trx_id", "payments created with one partner_trx_id"},
		{reference.FaultLostUpdateDebit, "from one wallet", "the wallet holds balance"},
		{reference.FaultRetryDebitsAgain, "with one partner_trx_id", "the wallet holds balance"},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			faulty := serve(t, httpapitest.Handler(t, tc.fault))
			c := caseNamed(t, run(t, probe.Options{Profile: faulty}), tc.caseName)
			require.Equal(t, verdict.StatusFailed, c.Status, "%s%s", c.Failure, c.Reason)
			for _, srv := range []struct {
				faults []reference.Fault
				defect bool
				tries  string
			}{{[]reference.Fault{tc.fault}, true, ""}, {nil, false, "3"}} {
				p := serve(t, httpapitest.Handler(t, srv.faults...))
				s := reprotest.Rebase(t, c.Reproduction, faulty.BaseURL, p.BaseURL)
				out, defect := reprotest.Verdict(t, s, p, "TRIES="+srv.tries)
				require.Equal(t, srv.defect, defect, "against a fresh reference with the faults %v:\n%s\nit printed:\n%s", srv.faults, s, out)
				if defect {
					line := regexp.MustCompile(`(?m)^DEFECT in wave [0-9]+ of 20: .*`).FindString(out)
					assert.Contains(t, line, tc.defect, out)
					t.Log(line)
				} else {
					assert.Contains(t, out, "no defect seen in 3 waves (a race may need more)")
				}
			}
		})
	}
}
