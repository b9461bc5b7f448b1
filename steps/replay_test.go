package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/steps"
	"github.com/partnercommerce/conformance/steps/stepstest"
	"github.com/partnercommerce/conformance/verdict"
)

// replayOne runs one feature file against the target at url: its one
// scenario's result and the console.
func replayOne(t *testing.T, url, feature string) (verdict.Case, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(url), Features: stepstest.Features(t, fstest.MapFS{"generated-1.feature": {Data: []byte(feature)}}),
		Output: &out, RequestTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	require.Len(t, res.Summary.Scenarios, 1)
	return res.Summary.Scenarios[0], out.String()
}

// trxIDsSeen serves the reference and keeps the partner_trx_id of every
// payment it receives.
func trxIDsSeen(t *testing.T, faults ...reference.Fault) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	v := variants.Variant{Name: "records partner_trx_id", Wrap: func(_ *reference.Dataset, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			raw, _ := io.ReadAll(r.Body)
			var body struct {
				TrxID string `json:"partner_trx_id"`
			}
			if r.URL.Path == "/client/v2/payment" && json.Unmarshal(raw, &body) == nil {
				mu.Lock()
				seen = append(seen, body.TrxID)
				mu.Unlock()
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
			next.ServeHTTP(w, r)
		})
	}}
	h, err := v.Handler(faults...)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

// TestReplayKeepsTheDefect: a written request whose partner_trx_id the
// generated mode made too long (51 characters, 39 of them multi-byte) is
// replayed with a fresh id of the same length and the same tail: it fails
// against a server that accepts it, and passes against the reference,
// which refuses it. A valid id stays valid.
func TestReplayKeepsTheDefect(t *testing.T) {
	t.Parallel()
	written := "gen-12349-299" + strings.Repeat("日", 38)
	require.Equal(t, 51, utf8.RuneCountInString(written))
	feature := `Feature: Generated reproduction: createPayment with partner_trx_id of 51 multi-byte characters

  Scenario: createPayment with partner_trx_id of 51 multi-byte characters is refused
    Given a cashier provisioned by the partner
    When the cashier sends POST "/client/v2/payment" with the JSON body:
      """
      {"msisdn":"081100000000","partner_trx_id":"` + written + `","payment_method_id":1,"product_id":1001,"use_balance":false,"use_coin":false}
      """
    Then the target refuses it with a 4xx status
`
	for _, tc := range []struct {
		name   string
		faults []reference.Fault
		want   string
	}{
		{"a server without the limit", []reference.Fault{reference.FaultNoTrxIDLimit}, verdict.StatusFailed},
		{"the reference", nil, verdict.StatusPassed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, seen := trxIDsSeen(t, tc.faults...)
			got, console := replayOne(t, url, feature)
			assert.Equal(t, tc.want, got.Status, console)
			ids := seen()
			require.Len(t, ids, 1)
			assert.Equal(t, 51, utf8.RuneCountInString(ids[0]), "the defect is kept: %s", ids[0])
			assert.NotEqual(t, written, ids[0], "a fresh id")
			assert.True(t, strings.HasPrefix(ids[0], "conf-") && strings.HasSuffix(ids[0], strings.Repeat("日", 30)), ids[0])
		})
	}
	url, seen := trxIDsSeen(t)
	got, console := replayOne(t, url, strings.Replace(feature, written, "gen-12349-7", 1))
	assert.Equal(t, verdict.StatusFailed, got.Status, "a valid payment is not refused: %s", console)
	require.Len(t, seen(), 1)
	assert.Regexp(t, `^conf-[0-9]+-[0-9]+$`, seen()[0], "a valid id is a fresh valid id")
}

// TestAReplayWhoseFundsAreSpentIsNotJudged: a generated reproduction whose
// funded customer holds less than it needs (an earlier run spent it, or the
// target was not reset) cannot show its fault nor its absence: its scenario
// is not judged, and the run is INCOMPLETE, not FAIL, saying what to fund
// or reset.
func TestAReplayWhoseFundsAreSpentIsNotJudged(t *testing.T) {
	t.Parallel()
	feature := `Feature: Generated reproduction: a wallet

  Scenario: the funded customer's wallet
    Given the funded customer of the partner, holding at least 2000000000000 rupiah and 0 coins
    When the funded customer reads its profile
    Then the funded customer's wallet holds what the payments reported leave
`
	var out bytes.Buffer
	res, err := steps.Run(context.Background(), steps.Options{
		Profile: profiles.Reference(httpapitest.NewServer(t).URL), Features: stepstest.Features(t, fstest.MapFS{"generated-1.feature": {Data: []byte(feature)}}),
		Output: &out, RequestTimeout: 10 * time.Second,
	})
	require.NoError(t, err)
	require.Len(t, res.Summary.Scenarios, 1)
	sc := res.Summary.Scenarios[0]
	assert.Equal(t, verdict.StatusNotJudged, sc.Status, "%s\n%s", sc.Reason, out.String())
	assert.Contains(t, sc.Reason, "and the reproduction needs at least 2000000000000 rupiah and 0 coins")
	assert.Contains(t, sc.Reason, "fund the account to at least that (or restart the target from its data set)")
	assert.True(t, res.OK(), "no failure")
	assert.Equal(t, verdict.VerdictIncomplete, res.Verdict(), out.String())
}
