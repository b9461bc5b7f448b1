package loadtest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
)

// TestHistoryCheckPassesOnReference: under load, the history of every
// scenario the check supports is linearizable on the reference, and the
// history file records every request and read.
func TestHistoryCheckPassesOnReference(t *testing.T) {
	t.Parallel()
	for _, sc := range []string{loadtest.ScenarioCreate, loadtest.ScenarioMixed, loadtest.ScenarioRetry} {
		t.Run(sc, func(t *testing.T) {
			t.Parallel()
			p := startReference(t)
			// The retry scenario's timeout is short, but not so short that a
			// busy machine (tests run with -race on two shared cores) times
			// the reference out.
			rec, rep := run(t, p, loadtest.WithScenario(sc), loadtest.WithLoad(constant(150, time.Second)), loadtest.WithHistory(true),
				loadtest.WithRetry(loadtest.DefaultRetries, 2*time.Second, loadtest.DefaultRetryBackoff))
			out := text(t, rep)
			require.NotNil(t, rep.History)
			h := rep.History
			require.True(t, h.Passed(), out)
			requireNoFailure(t, rep)
			assert.Positive(t, h.Debits, out)
			assert.Greater(t, h.Reads, len(p.LoadCustomers)*2, "reads during the attack besides the wallets before and after")
			assert.Contains(t, out, "history: linearizable")

			creates := 0
			for _, r := range recordtest.Results(t, rec) {
				if r.Op == record.OpCreate {
					creates++
				}
			}
			recorded := 0
			for _, op := range recordtest.History(t, rec) {
				if op.Op == record.OpCreate {
					recorded++
					assert.NotEmpty(t, op.Account)
					assert.NotEmpty(t, op.ID)
					assert.Positive(t, op.Invoke)
				}
			}
			assert.Equal(t, creates, recorded, "every payment request is in the history")

			dir := t.TempDir()
			require.NoError(t, report.WriteArtifacts(dir, rec, rep))
			back, err := record.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, recordtest.History(t, back), len(recordtest.History(t, rec)))
			assert.NoFileExists(t, filepath.Join(dir, verdict.FileHistoryHTML))
		})
	}
}

// TestARecordedHistoryStreamsToItsFile: a run writes its history to
// history.jsonl as it goes; the check reads the file, and a shard read
// back from its directory, merged, is checked from it with the same
// verdict.
func TestARecordedHistoryStreamsToItsFile(t *testing.T) {
	t.Parallel()
	p := startReference(t)
	dir := t.TempDir()
	rec, rep := runIn(t, dir, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, 500*time.Millisecond)),
		loadtest.WithHistory(true))
	require.NotNil(t, rep.History)
	require.True(t, rep.History.Passed(), text(t, rep))
	assert.True(t, rec.HasHistory())
	require.FileExists(t, filepath.Join(dir, record.FileHistory))
	creates := 0
	for _, op := range recordtest.History(t, rec) {
		if op.Op == record.OpCreate {
			creates++
		}
	}
	assert.Equal(t, rec.Tally.Requests(), creates, "every payment request is in the file")

	require.NoError(t, report.WriteArtifacts(dir, rec, rep)) // leaves the streamed file as it is
	back, err := record.ReadDir(dir)
	require.NoError(t, err)
	require.True(t, back.HasHistory())
	merged, err := record.Merge([]*record.Run{back}, true)
	require.NoError(t, err)
	h := judge(t, merged).History
	require.NotNil(t, h)
	assert.Equal(t, rep.History.Operations, h.Operations)
	assert.Equal(t, rep.History.Debits, h.Debits)
	assert.Equal(t, rep.History.Reads, h.Reads)
	assert.Equal(t, rep.History.Segments, h.Segments)
}

// TestHistoryCheckCatchesFaults: the check finds a lost-update debit and a
// stale profile read, names the first operation no serial order explains,
// grades it by its reading history-linearizable (a warning in report.json
// and the text, a failure of a strict run), and writes porcupine's
// visualisation next to the report.
func TestHistoryCheckCatchesFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fault reference.Fault
		opts  []loadtest.Option
	}{
		{reference.FaultLostUpdateDebit, []loadtest.Option{loadtest.WithLoad(constant(0, 500*time.Millisecond)),
			loadtest.WithMaxWorkers(6), loadtest.WithMaxConnections(6)}},
		{reference.FaultStaleProfile, []loadtest.Option{loadtest.WithLoad(constant(200, time.Second)),
			loadtest.WithHistoryReads(10 * time.Millisecond)}},
	}
	for _, tc := range cases {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			p := startReference(t, tc.fault)
			p.LoadCustomers = p.LoadCustomers[:1] // every payment on one account
			opts := append([]loadtest.Option{loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithHistory(true),
				loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1})}, tc.opts...)
			rec, rep := run(t, p, opts...)
			out := text(t, rep)
			require.NotNil(t, rep.History)
			h := rep.History
			require.Equal(t, verdict.HistoryIllegal, h.Verdict, out)
			assert.Contains(t, h.FirstUnexplained, "profile read", "a read shows a wallet no serial order produces")
			assert.Contains(t, out, "history: NOT linearizable: account load_customers[0]")
			require.NotNil(t, h.Warning)
			assert.Equal(t, "history-linearizable", h.Warning.Reading)
			assert.Contains(t, out, "WARNING (reading history-linearizable)")
			assert.NotContains(t, rep.Failures, h.String(), "a reading: a warning unless strict")
			v, err := verdict.Judge(rec, verdict.DefaultHistoryTimeout)
			require.NoError(t, err)
			v.Strict = true
			strict := report.BuildReport(rec, v, nil)
			assert.False(t, strict.Passed)
			assert.Contains(t, strict.Failures, "reading history-linearizable (strict run): "+h.String())
			t.Log(h)

			dir := t.TempDir()
			require.NoError(t, report.WriteArtifacts(dir, rec, rep))
			html, err := os.ReadFile(filepath.Join(dir, verdict.FileHistoryHTML))
			require.NoError(t, err)
			assert.Contains(t, string(html), "<html")
			page, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
			require.NoError(t, err)
			assert.Contains(t, string(page), `<p id="history-warning"><b>WARNING (reading history-linearizable)</b>`)
			js, err := os.ReadFile(filepath.Join(dir, report.FileReport))
			require.NoError(t, err)
			assert.Contains(t, string(js), `"reading": "history-linearizable"`)
		})
	}
}

// loseAnswers serves h but, for every nth payment creation, holds the
// answer until the client gives up: the payment is made, its answer lost.
func loseAnswers(h http.Handler, n int64) http.Handler {
	var count atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lose := r.Method == http.MethodPost && r.URL.Path == "/client/v2/payment" && count.Add(1)%n == 0
		h.ServeHTTP(w, r)
		if lose {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
}

// startLossyReference is startReference behind loseAnswers.
func startLossyReference(tb testing.TB, n int64, faults ...reference.Fault) *profiles.Profile {
	tb.Helper()
	p := startReference(tb, faults...)
	ref, err := url.Parse(p.BaseURL)
	require.NoError(tb, err)
	proxy := httptest.NewServer(loseAnswers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forward(w, r, ref.Host)
	}), n))
	tb.Cleanup(proxy.Close)
	p.BaseURL = proxy.URL
	return p
}

// forward relays r to host and copies the answer to w.
func forward(w http.ResponseWriter, r *http.Request, host string) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = "http", host
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body) // buffered until the handler returns, so that loseAnswers can hold it
}

// lossy is the retry scenario's configuration against a target that loses
// answers: a timeout the busy machine's reference meets but a held answer
// does not, and lost answers allowed by the thresholds.
var lossy = []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioRetry),
	loadtest.WithRetry(3, time.Second, 20*time.Millisecond), loadtest.WithLoad(constant(100, time.Second)),
	loadtest.WithHistory(true)}

var lossyThresholds = []report.Threshold{{Metric: "uncertain_pct", Op: "<=", Value: 100}}

// TestRetryScenarioOnReference: with one answer in ten lost, every lost
// payment is retried with the same id, the retry gets 409 or is created,
// status resolves every id, and nothing is debited twice.
func TestRetryScenarioOnReference(t *testing.T) {
	t.Parallel()
	p := startLossyReference(t, 10)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := newTester(p, lossy...).Run(ctx, t.TempDir())
	require.NoError(t, err)
	rep := judge(t, rec, lossyThresholds...)
	out := text(t, rep)
	requireNoFailure(t, rep)
	r := rep.Reconciliation
	assert.Positive(t, r.Uncertain, "answers were lost")
	retries, conflicts := 0, 0
	for _, pay := range recordtest.Payments(t, rec) {
		if pay.Attempt > 1 {
			retries++
			if pay.Outcome == record.OutcomeDuplicate {
				conflicts++
			}
		}
	}
	assert.Positive(t, retries, out)
	assert.Positive(t, conflicts, "a retry of a payment made is refused with 409")
	assert.Positive(t, r.Resolved, "ids without a created answer are resolved through payment status")
	assert.Zero(t, r.Duplicates)
	assert.True(t, rep.History.Passed(), rep.History.String())
	assert.Contains(t, out, "created once")
}

// TestRetryScenarioCatchesDoubleDebit: a server that debits a retry of a
// payment whose answer was lost (and then refuses it with 409) fails the
// balance reconciliation, which names the ids created twice, and the
// history check.
func TestRetryScenarioCatchesDoubleDebit(t *testing.T) {
	t.Parallel()
	p := startLossyReference(t, 10, reference.FaultRetryDebitsAgain)
	p.LoadCustomers = p.LoadCustomers[:1]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec, err := newTester(p, append(lossy, loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}))...).Run(ctx, t.TempDir())
	require.NoError(t, err)
	rep := judge(t, rec, lossyThresholds...)
	out := text(t, rep)
	require.False(t, rep.Passed, out)
	assert.Positive(t, rep.Reconciliation.Counts[verdict.InvBalance], out)
	assert.Contains(t, out, "created twice")
	assert.Equal(t, verdict.HistoryIllegal, rep.History.Verdict, out)
	t.Log("\n" + out)
}
