package loadtest_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// startReference serves an in-process reference on 127.0.0.1 and returns
// its profile.
func startReference(tb testing.TB, faults ...reference.Fault) *profiles.Profile {
	tb.Helper()
	srv := httpapitest.NewServer(tb, faults...)
	return profiles.Reference(srv.URL)
}

// startPaired serves an in-process reference whose payments are held in
// pairs of an account (recordtest.Paired): a short run exercises the
// rules that need overlap.
func startPaired(tb testing.TB, faults ...reference.Fault) *profiles.Profile {
	tb.Helper()
	srv := httptest.NewServer(recordtest.Paired(httpapitest.Handler(tb, faults...)))
	tb.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

func run(tb testing.TB, p *profiles.Profile, opts ...loadtest.Option) (*record.Run, *report.Report) {
	tb.Helper()
	return runIn(tb, tb.TempDir(), p, opts...)
}

// runIn runs a load test recorded into dir and judges it.
func runIn(tb testing.TB, dir string, p *profiles.Profile, opts ...loadtest.Option) (*record.Run, *report.Report) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec, err := newTester(p, opts...).Run(ctx, dir)
	require.NoError(tb, err)
	return rec, judge(tb, rec)
}

// newTester is a Tester of a short create run (50/s for 2 s) unless opts
// set others.
func newTester(p *profiles.Profile, opts ...loadtest.Option) *loadtest.Tester {
	return loadtest.New(p, append([]loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, 2*time.Second))}, opts...)...)
}

// judge checks the record o and builds its report with thresholds ths.
func judge(tb testing.TB, rec *record.Run, ths ...report.Threshold) *report.Report {
	tb.Helper()
	v, err := verdict.Judge(rec, verdict.DefaultHistoryTimeout)
	require.NoError(tb, err)
	return report.BuildReport(rec, v, ths)
}

// requireNoFailure requires that nothing of rep failed: it passed, or all
// that kept it from a pass is a rule that needs overlap which its short
// run never reached (report.Exercise).
func requireNoFailure(tb testing.TB, rep *report.Report) {
	tb.Helper()
	if rep.Passed {
		return
	}
	out := text(tb, rep)
	require.NotEmpty(tb, rep.NotExercised(), out)
	require.Equal(tb, []string{"INCOMPLETE: " + rep.NotExercised()}, rep.Failures, out)
}

func text(tb testing.TB, rep *report.Report) string {
	tb.Helper()
	var b strings.Builder
	require.NoError(tb, report.Text(rep)(&b))
	return b.String()
}

func constant(rate float64, d time.Duration) pacing.LoadProfile {
	return pacing.LoadProfile{Pacing: pacing.Constant, Rate: rate, Duration: d}
}

func TestScenariosPassAgainstReference(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []loadtest.Option
	}{
		{"create", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, time.Second))}},
		{"idempotency", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8), loadtest.WithLoad(constant(80, time.Second))}},
		{"mixed", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithLoad(constant(100, time.Second))}},
		{"create-linear", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate),
			loadtest.WithLoad(pacing.LoadProfile{Pacing: pacing.Linear, Rate: 20, EndRate: 100, Duration: time.Second})}},
		{"mixed-sine", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioMixed),
			loadtest.WithLoad(pacing.LoadProfile{Pacing: pacing.Sine, Rate: 60, Amplitude: 30, Period: 500 * time.Millisecond, Duration: time.Second})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startReference(t)
			_, rep := run(t, p, tc.opts...)
			out := text(t, rep)
			requireNoFailure(t, rep)
			require.NotNil(t, rep.Reconciliation)
			assert.Greater(t, rep.Reconciliation.Created, 0, out)
			assert.Equal(t, 0, rep.Contract.Violations, out)
			assert.Equal(t, rep.Reconciliation.Created, rep.Reconciliation.LookedUp, out)
			for _, a := range rep.Reconciliation.Accounts {
				assert.True(t, a.OK, "%+v", a)
				assert.Empty(t, a.Skipped)
			}
			t.Log("\n" + out)
		})
	}
}

func TestRacyDuplicateCheckIsDetected(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultRacyDuplicateCheck)
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(32),
		loadtest.WithLoad(constant(640, 1500*time.Millisecond)))
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Greater(t, rep.Reconciliation.Duplicates, 0, out)
	assert.Greater(t, rep.Reconciliation.Counts[verdict.InvUniqueID], 0, out)
	assert.Greater(t, rep.Reconciliation.Counts[verdict.InvIdempotency], 0, out)
	assert.Contains(t, out, "was created")
	t.Log("\n" + out)
}

func TestLostUpdateDebitIsDetected(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultLostUpdateDebit)
	p.LoadCustomers = p.LoadCustomers[:1] // every payment on one account: maximal contention
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}),
		loadtest.WithLoad(constant(0, time.Second)), loadtest.WithMaxWorkers(32), loadtest.WithMaxConnections(32))
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Greater(t, rep.Reconciliation.Counts[verdict.InvBalance], 0, out)
	assert.Equal(t, 0, rep.Reconciliation.Duplicates, out)
	t.Log("\n" + out)
}

// TestProgressReportsARunShorterThanItsInterval: the last progress update
// comes when the run ends, so even a run shorter than the interval reports
// everything it sent.
func TestProgressReportsARunShorterThanItsInterval(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	var updates []loadtest.Progress
	rec, _ := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, 300*time.Millisecond)),
		loadtest.WithProgress(time.Hour, func(pr loadtest.Progress) { updates = append(updates, pr) }))
	require.Len(t, updates, 1)
	last := updates[0]
	assert.True(t, last.Final)
	assert.Greater(t, last.Rate, 0.0)
	assert.Equal(t, int64(len(recordtest.Results(t, rec))), last.Sent)
	assert.Equal(t, last.Sent, last.Done)
	assert.Zero(t, last.InFlight)
}

// TestProvisionsAccountsWhenTheProfileHasNone: without funded customers the
// run provisions unfunded accounts and pays through a gateway.
func TestProvisionsAccountsWhenTheProfileHasNone(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	p.LoadCustomers, p.FundedCustomer = nil, nil
	rec, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(20, 300*time.Millisecond)),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindGateway: 1}))
	out := text(t, rep)
	require.True(t, rep.Passed, out)
	require.NotEmpty(t, rec.Accounts)
	for _, a := range rec.Accounts {
		assert.True(t, strings.HasPrefix(a.Account, "provisioned:08"), a.Account)
	}
	for _, pay := range recordtest.Payments(t, rec) {
		assert.Equal(t, record.KindGateway, pay.Kind)
	}
}

// TestAuthorizationHeaders: every request carries "Bearer <token>" of the
// right account: the main token for sync, a load customer's for the rest.
func TestAuthorizationHeaders(t *testing.T) {
	t.Parallel()
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	ref := httpapi.NewServer(slog.New(slog.DiscardHandler), st)
	var mu sync.Mutex
	seen := map[string]map[string]bool{} // path → Authorization values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if seen[r.URL.Path] == nil {
			seen[r.URL.Path] = map[string]bool{}
		}
		seen[r.URL.Path][r.Header.Get("Authorization")] = true
		mu.Unlock()
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p := profiles.Reference(srv.URL)
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithLoad(constant(200, 500*time.Millisecond)))
	requireNoFailure(t, rep)

	customers := map[string]bool{}
	for _, c := range p.LoadCustomers {
		customers["Bearer "+c.Token] = true
	}
	require.NotEmpty(t, customers)
	for path, auths := range seen {
		for a := range auths {
			if path == "/client/v2/product/sync" {
				assert.Equal(t, "Bearer "+p.MainToken, a, path)
			} else {
				assert.True(t, customers[a], "%s sent Authorization %q", path, a)
			}
		}
	}
	for _, path := range []string{"/client/v2/payment", "/client/v2/payment/status", "/client/v2/product/list",
		"/client/v2/product/sync", "/client/v2/customer/profile", "/client/v2/payment/methods"} {
		assert.NotEmpty(t, seen[path], path)
	}
}

// TestCreatedPaymentRulesAreDetected: a server whose balance and coins pay
// more than a payment's total (section 4.6 rule 4), or whose transaction
// numbers have no slash (section 2.5), breaks a document-level rule of a
// created payment (contract.CheckCreated, as the suite and the generated
// mode judge it); the load tester counts it as a contract violation.
func TestCreatedPaymentRulesAreDetected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault reference.Fault
		mix   loadtest.Weights
		says  string
	}{
		{reference.FaultCoinsBeyondTotal, loadtest.Weights{record.KindCoins: 1}, "balance and coins pay more than the total"},
		{reference.FaultTrxNumberWithoutSlash, loadtest.Weights{record.KindBalance: 1}, "the transaction is not named as the document says"},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			p := startReference(t, tc.fault)
			_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithReconcile(false),
				loadtest.WithPaymentMix(tc.mix), loadtest.WithLoad(constant(50, 500*time.Millisecond)))
			out := text(t, rep)
			require.False(t, rep.Passed, out)
			assert.Positive(t, rep.Contract.Violations, out)
			assert.Contains(t, out, tc.says, out)
		})
	}
}

// TestJSONLabelledTextIsDetected: an answer whose JSON body is labelled
// text/plain breaks section 4 ("JSON bodies use Content-Type:
// application/json"); the load tester counts it as a contract violation.
func TestJSONLabelledTextIsDetected(t *testing.T) {
	t.Parallel()
	ref := startReference(t)
	target, err := url.Parse(ref.BaseURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(r *http.Response) error {
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	p := profiles.Reference(srv.URL)
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(50, 500*time.Millisecond)))
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Positive(t, rep.Contract.Violations, out)
	assert.Contains(t, out, "is not application/json", out)
}

// TestTotalPagesRoundedDownIsDetected: a catalog whose page count leaves
// out its last page breaks a document-level rule (contract.CheckTotalPages);
// the load tester refuses to run on the catalog it would misread.
func TestTotalPagesRoundedDownIsDetected(t *testing.T) {
	t.Parallel()
	p := startReference(t, reference.FaultTotalPagesRoundedDown)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := newTester(p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(10, 100*time.Millisecond))).Run(ctx, t.TempDir())
	require.ErrorIs(t, err, contract.ErrTotalPages)
}
