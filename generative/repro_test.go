package generative_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// not.
func TestAGeneratedFailureReproducesAsPrinted(t *testing.T) {
	t.Parallel()
	reprotest.NeedCurl(t)
	for _, tc := range []struct {
		fault    reference.Fault
		property string
		defect   string // matches the answer from the faulty reference only
	}{
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
			}
			require.NotEmpty(t, script, "no failure of %q printed a curl line", tc.property)
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
