package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/internal/throttle"
	"github.com/partnercommerce/conformance/probe"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
	"github.com/partnercommerce/conformance/reference/variants"
	"github.com/partnercommerce/conformance/verdict"
)

// serve serves h until the test ends and returns the reference's profile
// for it.
func serve(tb testing.TB, h http.Handler) *profiles.Profile {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

// short are the options of a test run: a few waves, the seed fixed.
func short(p *profiles.Profile) probe.Options {
	return probe.Options{Profile: p, Seed: 35, Waves: 4}
}

// run runs the probe and fails the test on an error.
func run(tb testing.TB, opts probe.Options) probe.Result {
	tb.Helper()
	res, err := probe.Run(context.Background(), opts)
	require.NoError(tb, err)
	return res
}

// foundCase is the name of the probe's case that looks up every payment
// the run created.
const foundCase = "every payment the run created is found by its transaction_number and its partner_trx_id"

// statuses is the status of each case, by the case's name.
func statuses(res probe.Result) map[string]string {
	out := map[string]string{}
	for _, c := range res.Cases {
		out[c.Case] = c.Status
	}
	return out
}

func TestOptionsAreChecked(t *testing.T) {
	t.Parallel()
	ref := profiles.Reference("http://127.0.0.1:1")
	for _, tc := range []struct {
		name string
		opts probe.Options
	}{
		{"no profile", probe.Options{}},
		{"a profile without a base URL", probe.Options{Profile: profiles.Reference("")}},
		{"a wave of one", probe.Options{Profile: ref, WaveSize: 1}},
		{"a wave too large", probe.Options{Profile: ref, WaveSize: probe.MaxWaveSize + 1}},
		{"negative waves", probe.Options{Profile: ref, Waves: -1}},
		{"a client certificate without its key", probe.Options{Profile: ref}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.name == "a client certificate without its key" {
				tc.opts.Conn.ClientCert = "client.pem"
			}
			if tc.name == "a profile without a base URL" {
				tc.opts.Profile.BaseURL = ""
			}
			_, err := probe.Run(context.Background(), tc.opts)
			assert.ErrorIs(t, err, probe.ErrUsage)
		})
	}
}

// TestProbeSkipsWhatTheProfileLacks: a profile without a funded customer
// skips the wallet case, naming the key (a skip the profile causes), and
// the partner_trx_id case pays from a cashier of its own through a gateway
// method instead.
func TestProbeSkipsWhatTheProfileLacks(t *testing.T) {
	t.Parallel()
	p := serve(t, httpapitest.Handler(t))
	p.FundedCustomer = nil
	res := run(t, short(p))
	require.Len(t, res.Cases, 3)
	one, wallet, found := res.Cases[0], res.Cases[1], res.Cases[2]
	assert.Equal(t, verdict.StatusPassed, found.Status, "%s%s", found.Failure, found.Reason)
	assert.Equal(t, 4, found.Waves, "the one payment each of the 4 waves created")
	assert.Equal(t, verdict.StatusPassed, one.Status, "%s%s", one.Failure, one.Reason)
	assert.Equal(t, 4, one.Waves)
	assert.Equal(t, verdict.StatusSkipped, wallet.Status)
	assert.Contains(t, wallet.Reason, "funded_customer.token")
	assert.Equal(t, 1, res.Skipped())
	assert.Zero(t, res.NotJudged())
}

// TestProbeDoesNotJudgeWhatTheTargetRefuses: a target that refuses every
// payment the probe needs keeps its rules from being judged: the cases
// are not judged, with the refusal as their reason, never passed; a
// refusal that itself breaks the document is a failure.
func TestProbeDoesNotJudgeWhatTheTargetRefuses(t *testing.T) {
	t.Parallel()
	gatewayNotYet, ok := variants.Named("a payment gateway that cannot process payments yet")
	require.True(t, ok)
	for _, tc := range []struct {
		name     string
		target   func(t *testing.T) *profiles.Profile
		want     map[string]string
		inReason string
	}{
		{"every payment refused with 422", func(t *testing.T) *profiles.Profile {
			return profiles.Reference(httpapitest.NewServerAnswering(t, "/client/v2/payment", http.StatusUnprocessableEntity, "Saldo tidak mencukupi.").URL)
		}, map[string]string{"concurrent payments with one partner_trx_id": verdict.StatusNotJudged, "concurrent payments from one wallet": verdict.StatusNotJudged, foundCase: verdict.StatusSkipped},
			"422 Saldo tidak mencukupi."},
		{"no funded customer, and every gateway payment refused with 422", func(t *testing.T) *profiles.Profile {
			d, err := gatewayNotYet.Double()
			require.NoError(t, err)
			p := serve(t, d)
			p.FundedCustomer = nil
			return p
		}, map[string]string{"concurrent payments with one partner_trx_id": verdict.StatusNotJudged, "concurrent payments from one wallet": verdict.StatusSkipped, foundCase: verdict.StatusSkipped},
			"422"},
		{"the profile answered with the documented 500", func(t *testing.T) *profiles.Profile {
			return profiles.Reference(httpapitest.NewServerAnswering(t, "/client/v2/customer/profile", http.StatusInternalServerError, contract.MsgProfileUnloaded).URL)
		}, map[string]string{"concurrent payments with one partner_trx_id": verdict.StatusNotJudged, "concurrent payments from one wallet": verdict.StatusNotJudged, foundCase: verdict.StatusSkipped},
			contract.MsgProfileUnloaded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := run(t, short(tc.target(t)))
			assert.Equal(t, tc.want, statuses(res))
			for _, c := range res.Cases {
				switch c.Status {
				case verdict.StatusNotJudged:
					assert.Contains(t, c.Reason, tc.inReason)
					assert.Zero(t, c.Waves)
				}
			}
			assert.False(t, res.OK())
			assert.Zero(t, res.Failed())
		})
	}
}

// TestAServerFaultIsAFailure: a 5xx the document does not give, to a
// payment, a status lookup or a profile read, fails the case that met it;
// but a gateway's page (HTML, Server: nginx) is not the API's answer: the
// probe stops once most answers are the gateway's, and its cases are not
// judged, saying which gateway answered.
func TestAServerFaultIsAFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path            string
		page            bool // a gateway's HTML page rather than the API's JSON
		one, wallet     string
		found           string
		failureMentions string
	}{
		{"/client/v2/payment", false, verdict.StatusFailed, verdict.StatusFailed, verdict.StatusSkipped, "createPayment answered 500"},
		{"/client/v2/payment/status", false, verdict.StatusFailed, verdict.StatusPassed, verdict.StatusFailed, "getPaymentStatus answered 500"},
		{"/client/v2/customer/profile", false, verdict.StatusFailed, verdict.StatusFailed, verdict.StatusSkipped, "getCustomerProfile answered 500"},
		{"/client/v2/payment", true, verdict.StatusNotJudged, verdict.StatusNotJudged, verdict.StatusNotJudged, "502 Bad Gateway (Server: nginx)"},
	} {
		t.Run(fmt.Sprintf("%s, a page %v", tc.path, tc.page), func(t *testing.T) {
			t.Parallel()
			ref := httpapitest.Handler(t)
			p := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path != tc.path:
					ref.ServeHTTP(w, r)
				case tc.page:
					w.Header().Set("Server", "nginx")
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusBadGateway)
					_, _ = w.Write([]byte("<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>"))
				default:
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusInternalServerError)
					_, _ = w.Write([]byte(`{"status":false,"message":"internal error"}`))
				}
			}))
			res := run(t, short(p))
			assert.Equal(t, map[string]string{"concurrent payments with one partner_trx_id": tc.one, "concurrent payments from one wallet": tc.wallet,
				foundCase: tc.found}, statuses(res))
			for _, c := range res.Cases {
				if c.Status == verdict.StatusNotJudged {
					assert.Contains(t, c.Reason, tc.failureMentions, "a gateway's page is not the API's fault")
				}
				if c.Status == verdict.StatusFailed {
					assert.Contains(t, c.Failure, tc.failureMentions)
					assert.Contains(t, c.Failure, "a server fault the document does not give")
					assert.Equal(t, contract.SentenceServerFault, c.Sentence)
				}
			}
		})
	}
}

// TestTheCombinedRunsGateIsUsed: given a gate (the combined run's, shared
// by its judges), the probe sends through it: a throttling target holds
// that gate, and the result's throttling is the gate's.
func TestTheCombinedRunsGateIsUsed(t *testing.T) {
	t.Parallel()
	v := variants.Throttles()
	d, err := v.Double()
	require.NoError(t, err)
	gate := throttle.New(throttle.Options{})
	opts := short(serve(t, d))
	opts.Gate = gate
	res := run(t, opts)
	assert.True(t, res.OK(), "%+v", res.Cases)
	assert.Positive(t, gate.Summary().Throttled)
	assert.Equal(t, gate.Summary(), res.Throttling)
}

// holdingAnswers is the reference, except that each payment's answer,
// processed as usual, is held until the probe gives up on it (its request
// timeout): the probe gets no answer, only a status lookup can say what
// happened.
func holdingAnswers(tb testing.TB, faults ...reference.Fault) http.Handler {
	tb.Helper()
	ref := httpapitest.Handler(tb, faults...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/client/v2/payment" {
			ref.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
		<-r.Context().Done()
	})
}

// TestProbeSettlesPaymentsWithoutAnAnswer: payments whose answers never
// come within the request timeout are uncertain, settled by a status
// lookup: a correct server passes, and a server that creates every one of
// them still fails (the wallet lost eight debits where one payment exists
// by its id).
func TestProbeSettlesPaymentsWithoutAnAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault reference.Fault
		want  string
	}{
		{"", verdict.StatusPassed},
		{reference.FaultDuplicateTrxAccepted, verdict.StatusFailed},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			opts := short(serve(t, holdingAnswers(t, faultsOf(tc.fault)...)))
			opts.RequestTimeout, opts.Waves = 200*time.Millisecond, 2
			res := run(t, opts)
			one := caseNamed(t, res, "one partner_trx_id")
			assert.Equal(t, tc.want, one.Status, "%s%s", one.Failure, one.Reason)
			if tc.fault == "" {
				assert.Equal(t, verdict.StatusPassed, caseNamed(t, res, "one wallet").Status)
				assert.Equal(t, 2, one.Waves, "every wave judged through the lookups")
			} else {
				assert.Contains(t, one.Failure, "the wallet does not hold what the payments reported leave")
			}
		})
	}
}

// slowProbed is the delay of the slow double the probe is held to beyond
// the one of variants.All: a server a quarter of a second late on every
// request.
const slowProbed = 250 * time.Millisecond

// TestProbeIsBoundedAgainstASlowServer: against a server a quarter of a
// second late on every request, the probe stops starting waves when its
// time budget has passed and runs one wave of each case at least; a race
// case cut below the waves a race needs is not judged, saying the budget
// that cut it (before, it passed on one wave of twenty); the lookups pass
// and say the cut; every answer it read was late.
func TestProbeIsBoundedAgainstASlowServer(t *testing.T) {
	t.Parallel()
	v := variants.Slow(slowProbed)
	d, err := v.Double()
	require.NoError(t, err)
	opts := short(serve(t, d))
	opts.Waves, opts.Duration = probe.DefaultWaves, time.Second
	res := run(t, opts)
	require.Len(t, res.Cases, 3)
	for _, c := range res.Cases[:2] {
		assert.Equal(t, verdict.StatusNotJudged, c.Status, "%s%s", c.Failure, c.Reason)
		assert.Positive(t, c.Waves)
		assert.Less(t, c.Waves, probe.DefaultWaves/4)
		assert.Contains(t, c.Reason, "and a race needs 5 at least to be judged")
		assert.Contains(t, c.Reason, "the time budget of 1 s ran out")
	}
	found := res.Cases[2]
	assert.Equal(t, verdict.StatusPassed, found.Status, "%s%s", found.Failure, found.Reason)
	assert.Contains(t, found.Cut, "the time budget of 1 s ran out")
	assert.NoError(t, v.CheckChanged(variants.Probe, d.Changed()))
}

// TestProbeStopsWhenTheTargetKeepsThrottling: a target that throttles
// every request stops the run once it has held off for MaxThrottleWait:
// the cases are not judged, none failed, and the result says why.
func TestProbeStopsWhenTheTargetKeepsThrottling(t *testing.T) {
	t.Parallel()
	p := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	opts := short(p)
	opts.MaxThrottleWait = 300 * time.Millisecond
	res := run(t, opts)
	assert.Contains(t, res.Stopped, "the target kept throttling")
	assert.Equal(t, 3, res.NotJudged())
	assert.Positive(t, res.Throttling.Throttled)
	assert.Zero(t, res.Failed())
}

// TestProbeInterrupted: a run whose context ends before it starts runs no
// case: each is skipped, and the result says it was interrupted.
func TestProbeInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("interrupt signal received"))
	res, err := probe.Run(ctx, short(serve(t, httpapitest.Handler(t))))
	require.NoError(t, err)
	assert.Equal(t, 3, res.Skipped())
	assert.Equal(t, "interrupted (interrupt signal received)", res.Interrupted)
	for _, c := range res.Cases {
		assert.Contains(t, c.Reason, "not run: interrupted")
	}
}

// TestAReadingDepartedFromIsAWarning: a status record whose total is a
// rupiah above the created payment's departs from the reading
// status-record-amounts: a warning, a failure in a strict run.
func TestAReadingDepartedFromIsAWarning(t *testing.T) {
	t.Parallel()
	ref := httpapitest.Handler(t)
	p := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/client/v2/payment/status" {
			ref.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var rec2 map[string]any
		if dec := json.NewDecoder(bytes.NewReader(body)); dec.Decode(&rec2) == nil {
			if data, ok := rec2["data"].(map[string]any); ok {
				if amount, ok := data["amount"].(map[string]any); ok {
					amount["total"] = amount["total"].(float64) + 1
					body, _ = json.Marshal(rec2)
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	}))
	res := run(t, short(p))
	one := caseNamed(t, res, "one partner_trx_id")
	require.Equal(t, verdict.StatusPassed, one.Status, one.Failure)
	require.Len(t, one.Warnings, 1)
	assert.Equal(t, "status-record-amounts", one.Warnings[0].Reading)
	assert.Equal(t, 1, res.Warned())

	strict := short(p)
	strict.Strict = true
	one = caseNamed(t, run(t, strict), "one partner_trx_id")
	assert.Equal(t, verdict.StatusFailed, one.Status)
	assert.Contains(t, one.Failure, "reading status-record-amounts (strict run)")
	assert.Equal(t, "/data/amount", one.Pointer)
}

// TestOneSeedDrawsTheSameWaves: two runs with one seed draw the same
// payments (the reproduction of the same fault is the same script), and
// another seed draws others.
func TestOneSeedDrawsTheSameWaves(t *testing.T) {
	t.Parallel()
	p := serve(t, httpapitest.Handler(t, reference.FaultDuplicateTrxAccepted))
	repro := func(seed uint64) string {
		opts := short(p)
		opts.Seed = seed
		return caseNamed(t, run(t, opts), "one partner_trx_id").Reproduction
	}
	first := repro(7)
	require.NotEmpty(t, first)
	assert.Equal(t, first, repro(7))
	assert.NotEqual(t, first, repro(8))
}

// TestAPaymentNotFoundByItsNumberFails: a server that does not find a
// partner's first payment by its transaction_number (an index that starts
// one past its first entry), and answers every other lookup right, fails
// the case that looks up what the run created, with the lookup to send
// again; the waves, which look up by partner_trx_id, pass.
func TestAPaymentNotFoundByItsNumberFails(t *testing.T) {
	t.Parallel()
	ref := httpapitest.Handler(t)
	var mu sync.Mutex
	first := ""
	p := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lost := first
		mu.Unlock()
		if r.URL.Path == "/client/v2/payment/status" && lost != "" && r.URL.Query().Get("transaction_number") == lost {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"status":false,"message":"` + contract.MsgNotFound + `"}`))
			return
		}
		if r.URL.Path != "/client/v2/payment" {
			ref.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		ref.ServeHTTP(rec, r)
		var created struct {
			Data struct {
				Transaction struct {
					TransactionNumber string `json:"transaction_number"`
				} `json:"transaction"`
			} `json:"data"`
		}
		if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &created) == nil {
			mu.Lock()
			if first == "" {
				first = created.Data.Transaction.TransactionNumber
			}
			mu.Unlock()
		}
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	res := run(t, short(p))
	assert.Equal(t, map[string]string{"concurrent payments with one partner_trx_id": verdict.StatusPassed,
		"concurrent payments from one wallet": verdict.StatusPassed, foundCase: verdict.StatusFailed}, statuses(res))
	found := res.Cases[2]
	assert.Contains(t, found.Failure, "not found by its transaction_number")
	assert.Contains(t, found.Failure, "transaction_number="+first)
	assert.Equal(t, contract.SentenceFound, found.Sentence)
	assert.Contains(t, found.Reproduction, "/client/v2/payment/status?"+url.Values{"transaction_number": {first}}.Encode())
}
