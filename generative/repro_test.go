package generative_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/generative"
	"github.com/partnercommerce/conformance/internal/repro/reprotest"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// TestAGeneratedFailureReproducesAsPrinted: the curl reproduction a failed
// schema property prints runs as printed with sh (its variables set as its
// first line says): against the faulty reference, twice (a fresh
// partner_trx_id each time, so that a payment sent again is not refused as
// a reuse), its answer shows the defect; against the correct one it does
// not. A payment's failure by the wallet, and a sequence's, is reproduced
// by the wallet: the script says DEFECT against a fresh faulty reference and
// that it saw none against a fresh correct one.
func TestAGeneratedFailureReproducesAsPrinted(t *testing.T) {
	t.Parallel()
	reprotest.NeedCurl(t)
	for _, tc := range []struct {
		fault    reference.Fault
		property string
		defect   string // matches the answer from the faulty reference only; "": the script says its verdict
	}{
		// A refused payment that took from the wallet: the script reads the
		// wallet, pays, reads it again and computes the check.
		{reference.FaultInactiveProductDebitKept, "createPayment: valid requests", ""},
		// A sequence's failure by a wallet: its script sends the sequence
		// again from the wallet's first read.
		{reference.FaultReprovisionResetsWallet, "sequences", ""},
		{reference.FaultMixedWalletCredited, "sequences", ""},
		// The id is the defect (its length), kept with a fresh head.
		{reference.FaultNoTrxIDLimit, "createPayment: requests that break the schema", `^HTTP/1.1 2`},
		{reference.FaultErrorsAsText, "createPayment: requests that break the schema", `(?i)\ncontent-type: text/plain`},
		{reference.FaultCustomerIDAsString, "getCustomerProfile: valid requests", `"customer": ?\{[^}]*"id": ?"`},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			faulty := httpapitest.NewServer(t, tc.fault)
			correct := httpapitest.NewServer(t)
			var script string
			for _, p := range failedAgainst(t, faulty.URL, tc.property, false) {
				if strings.Contains(p.Reproduction, "curl ") {
					script = p.Reproduction
				}
				// A sequence's script follows its scenario.
				if _, sh, ok := strings.Cut(script, generative.SequenceScriptHead+"\n"); ok {
					script = sh
				}
			}
			require.NotEmpty(t, script, "no failure of %q printed a curl line", tc.property)
			if tc.defect == "" {
				for _, srv := range []struct {
					faults []reference.Fault
					defect bool
				}{{[]reference.Fault{tc.fault}, true}, {nil, false}} {
					fresh := httpapitest.NewServer(t, srv.faults...)
					s := reprotest.Rebase(t, script, faulty.URL, fresh.URL)
					out, defect := reprotest.Verdict(t, s, profiles.Reference(fresh.URL))
					assert.Equal(t, srv.defect, defect, "against a fresh reference with the faults %v:\n%s\nit printed:\n%s", srv.faults, s, out)
				}
				return
			}
			defect := regexp.MustCompile(tc.defect)
			prof := profiles.Reference(faulty.URL)
			for range 2 {
				assert.Regexp(t, defect, reprotest.Run(t, script, prof), "against the faulty reference:\n%s", script)
			}
			again := reprotest.Rebase(t, script, faulty.URL, correct.URL)
			assert.NotRegexp(t, defect, reprotest.Run(t, again, prof), "against the correct reference:\n%s", again)
		})
	}
}

// TestAGeneratedFailureWritesItsHAR: a failure written as a feature file
// has its failing example's requests and answers beside it, as a HAR file
// (generated-N.har), the secrets masked: for reprovision-resets-wallet's
// sequence, the provisioning of the funded customer's phone number again
// and its profile reads.
func TestAGeneratedFailureWritesItsHAR(t *testing.T) {
	t.Parallel()
	faulty := httpapitest.NewServer(t, reference.FaultReprovisionResetsWallet)
	res := runAgainst(t, faulty.URL, "sequences", false)
	dir := t.TempDir()
	written, err := generative.WriteFeatures(dir, generative.Options{Profile: profiles.Reference(faulty.URL)}, res)
	require.NoError(t, err)
	require.Len(t, written, 1)
	assert.Equal(t, filepath.Join(dir, "generated-1.har"), written[0].HAR)
	data, err := os.ReadFile(written[0].HAR)
	require.NoError(t, err)
	for _, sc := range profiles.Reference(faulty.URL).Secrets() {
		assert.NotContains(t, string(data), sc.Value, "the value of %s is written", sc.Key)
	}
	var har struct {
		Log struct {
			Entries []struct {
				Request  struct{ Method, URL string }
				Response struct{ Status int }
			}
		}
	}
	require.NoError(t, json.Unmarshal(data, &har))
	var sent []string
	for _, e := range har.Log.Entries {
		sent = append(sent, e.Request.Method+" "+strings.TrimPrefix(e.Request.URL, faulty.URL))
	}
	assert.Contains(t, sent, "POST /client/v2/customer/provision_account")
	assert.Equal(t, "GET /client/v2/customer/profile", sent[len(sent)-1], "the read that showed the wallet emptied, last")
}
