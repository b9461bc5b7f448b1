package repro_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/repro"
	"github.com/partnercommerce/conformance/internal/repro/reprotest"
	"github.com/partnercommerce/conformance/internal/transport"
	"github.com/partnercommerce/conformance/profiles"
)

// TestSecretsAreVariablesNamedOnce: no secret of the profile is written in
// a reproduction; each is a variable, named once in the first line with
// the profile key it comes from, however many requests use it.
func TestSecretsAreVariablesNamedOnce(t *testing.T) {
	prof := profiles.Reference("http://127.0.0.1:1")
	s := repro.New(prof, "", transport.Options{Headers: http.Header{"X-Gateway-Key": {"g"}}})
	h := http.Header{"X-Secret-Key": {prof.SecretKey}, "Authorization": {"Bearer " + prof.FundedCustomer.Token}}
	s.Add(repro.Request{Method: http.MethodGet, Path: "/client/v2/customer/profile", Header: h})
	s.Add(repro.Request{Method: http.MethodGet, Path: "/client/v2/customer/profile", Header: h})
	out := s.String()
	for _, sc := range prof.Secrets() {
		assert.NotContains(t, out, sc.Value, "the value of %s is written", sc.Key)
	}
	first, _, _ := strings.Cut(out, "\n")
	assert.Equal(t, "# Set first: SECRET_KEY to the secret_key of profiles/reference.yaml, FUNDED_CUSTOMER_TOKEN to its funded_customer.token, "+
		"HEADER_X_GATEWAY_KEY to the value of -H 'X-Gateway-Key: …'.", first)
	assert.Equal(t, 2, strings.Count(out, `-H "Authorization: Bearer ${FUNDED_CUSTOMER_TOKEN}"`))
}

// TestAMadeUpIDIsFreshKeepingWhatTheDefectAdded: a made-up partner_trx_id
// is written with a fresh head drawn on each run, what follows its head
// kept and its length with it; the same id twice is the same fresh id (a
// reuse stays a reuse); an id no judge made up is written as it is.
func TestAMadeUpIDIsFreshKeepingWhatTheDefectAdded(t *testing.T) {
	s := repro.New(profiles.Reference("http://127.0.0.1:1"), "", transport.Options{})
	long := "conf-1-2-" + strings.Repeat("x", 42) // 51 characters
	for _, body := range []string{`{"partner_trx_id":"` + long + `"}`, `{"partner_trx_id":"` + long + `"}`, `{"partner_trx_id":"gen-3-4"}`, `{"partner_trx_id":"mine-1"}`} {
		s.Add(repro.Request{Method: http.MethodPost, Path: "/client/v2/payment", Body: []byte(body)})
	}
	out := s.String()
	want := `"repro-'"${ID}` + strings.Repeat("x", 51-len("repro-")-12) + `"'"`
	assert.Equal(t, 2, strings.Count(out, want), out)
	assert.Contains(t, out, `"repro-'"${ID}-2"'"`)
	assert.Contains(t, out, `"partner_trx_id":"mine-1"`)
	assert.Contains(t, out, "\nID=$(")
}

// TestAnUnsetVariableStopsTheScript: a script run without a variable it
// needs stops before its first request, saying which profile key to set it
// to, rather than sending requests the target refuses (401), which reads
// like the target's fault.
func TestAnUnsetVariableStopsTheScript(t *testing.T) {
	t.Parallel()
	reprotest.NeedCurl(t)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
	defer srv.Close()
	prof := profiles.Reference(srv.URL)
	s := repro.New(prof, "my-server.yaml", transport.Options{})
	s.Add(repro.Request{Method: http.MethodGet, Path: "/client/v2/customer/profile", Header: http.Header{"X-Secret-Key": {prof.SecretKey}}})
	cmd := exec.CommandContext(t.Context(), "sh", "-c", s.String())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the script ran without SECRET_KEY:\n%s", out)
	assert.Contains(t, string(out), "SECRET_KEY: set SECRET_KEY to the secret_key of my-server.yaml")
	assert.Zero(t, requests.Load(), "the script sent a request without SECRET_KEY")
}
