package loadtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/nemesis"
	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi/httpapitest"
)

// hangingTarget never answers until the client gives up, but for the
// preflight.
func hangingTarget(t *testing.T) *profiles.Profile {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/client/v2/product/sync" { // the preflight
			_, _ = w.Write([]byte(`{"status":true,"message":"ok","data":null}`))
			return
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return profiles.Reference(srv.URL)
}

var oneProduct = &record.Catalog{Products: []record.Product{{ID: 1001, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300}}}

func TestHangingServerTimesOutAsUncertain(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(20, 300*time.Millisecond)), loadtest.WithTimeout(100*time.Millisecond))
	require.NotEmpty(t, recordtest.Results(t, rec))
	assert.Equal(t, len(recordtest.Results(t, rec)), rep.Uncertain)
	for _, p := range recordtest.Payments(t, rec) {
		assert.Equal(t, record.OutcomeUncertain, p.Outcome)
		assert.Equal(t, "timeout", p.Message)
	}
	assert.False(t, rep.Passed) // nothing got the expected answer
}

func TestDrainTimeoutAbandonsInFlightRequests(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(20, 200*time.Millisecond)), loadtest.WithTimeout(time.Minute),
		loadtest.WithDrain(50*time.Millisecond))
	assert.Greater(t, rec.Generator.Abandoned, int64(0))
	assert.Equal(t, len(recordtest.Results(t, rec)), rep.Uncertain)
}

// TestATightTimeoutDoesNotFailThePreflight: the preflight waits for its
// answer longer than a tight --timeout (the first request pays for the
// connection); the run's own requests keep the timeout.
func TestATightTimeoutDoesNotFailThePreflight(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond) // slower than the timeout, preflight included
		_, _ = w.Write([]byte(`{"status":true,"message":"ok","data":null}`))
	}))
	t.Cleanup(srv.Close)
	rec, rep := run(t, profiles.Reference(srv.URL), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(20, 200*time.Millisecond)), loadtest.WithTimeout(50*time.Millisecond))
	require.NotEmpty(t, recordtest.Results(t, rec))
	assert.Equal(t, len(recordtest.Results(t, rec)), rep.Uncertain, "every payment timed out after 50 ms")
}

func TestUncertainRequestsAreBoundedInReconciliation(t *testing.T) {
	t.Parallel()
	// Against a hanging server with reconciliation on, the wallet reads fail
	// too: the run still ends, and reports what it could not reconcile.
	rec, rep := run(t, hangingTarget(t), loadtest.WithCatalog(oneProduct),
		loadtest.WithLoad(constant(20, 200*time.Millisecond)), loadtest.WithTimeout(100*time.Millisecond))
	require.NotNil(t, rep.Reconciliation)
	assert.Equal(t, len(recordtest.Payments(t, rec)), rep.Reconciliation.Uncertain)
	for _, a := range rep.Reconciliation.Accounts {
		assert.NotEmpty(t, a.Skipped)
	}
}

// fastTarget answers every request at once with 200 and a small body (the
// checks flag it; only the generator is under test).
func fastTarget(t *testing.T) *profiles.Profile {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"status":true,"message":"ok","data":null}`))
	}))
	t.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

// TestMaxRateRunStopsAtItsDuration: a max-rate run sends only within its
// duration, so that sends ÷ duration is its true rate.
func TestMaxRateRunStopsAtItsDuration(t *testing.T) {
	t.Parallel()
	const d = time.Second
	rec, rep := run(t, fastTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(0, d)), loadtest.WithMaxWorkers(8), loadtest.WithMaxConnections(8))
	require.NotEmpty(t, recordtest.Results(t, rec))
	var last time.Time
	for _, r := range recordtest.Results(t, rec) {
		if r.Scheduled.After(last) {
			last = r.Scheduled
		}
	}
	// The grace a paced run allows for late sends is d/10 = 100ms; a
	// max-rate run has no schedule to be late on, and gets none.
	assert.LessOrEqual(t, last.Sub(rec.Meta.Began), d+25*time.Millisecond, "last dispatch")
	assert.Equal(t, int64(len(recordtest.Results(t, rec))), rec.Generator.Sent)
	assert.InDelta(t, float64(len(recordtest.Results(t, rec)))/d.Seconds(), rep.Generator.AchievedRate, 1e-9)
}

// lookupHangingTarget is the reference, except that payment status never
// answers until the client gives up; lookups counts the status look-ups
// that reached it.
func lookupHangingTarget(t *testing.T, lookups *atomic.Int64) *profiles.Profile {
	t.Helper()
	ref := startReference(t)
	release := make(chan struct{})
	target, err := url.Parse(ref.BaseURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/client/v2/payment/status" {
			lookups.Add(1)
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	p := *ref
	p.BaseURL = srv.URL
	return &p
}

// TestReconciliationIsBoundedByItsDeadline: with a target whose status
// look-ups hang, reconciliation stops at its own deadline instead of
// taking created ids × timeout ÷ workers, and the ids it could not look up
// are violations, never a pass.
func TestReconciliationIsBoundedByItsDeadline(t *testing.T) {
	t.Parallel()
	var lookups atomic.Int64
	p := lookupHangingTarget(t, &lookups)
	_, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, 300*time.Millisecond)),
		loadtest.WithTimeout(2*time.Second), loadtest.WithReconcileTimeout(300*time.Millisecond))
	r := rep.Reconciliation
	require.NotNil(t, r)
	require.Greater(t, r.Created, 0)
	// Bounded by counts, not by the clock: at the deadline the look-ups in
	// flight are abandoned and no new one starts, so fewer look-ups reach the
	// target than ids were created (without a deadline every id would be
	// looked up, each after the 2 s timeout of the one before on its worker).
	assert.Less(t, lookups.Load(), int64(r.Created), "look-ups reaching the target")
	assert.False(t, rep.Passed)
	assert.False(t, r.Passed())
	assert.Equal(t, r.Created, r.Counts[verdict.InvLookup], "every created id is unreconciled: %+v", r.Violations)
	txt := text(t, rep)
	require.Len(t, rep.Findings, 1, "one cause: the target stopped answering the reconciliation:\n%s", txt)
	assert.Contains(t, txt, "  1. the run could not reconcile its payments: the target did not answer at reconciliation time")
	assert.Regexp(t, fmt.Sprintf("\n     so %d created ids were not looked up \\(e\\.g\\. .*\\)\n     so the wallets of %d accounts were not read after the run \\(e\\.g\\. .*\\)\n", r.Created, len(r.Accounts)), txt)
}

// TestPlannedCountsTheWholeSchedule: Planned is every hit the schedule puts
// within the duration, also when the run is cut short.
func TestPlannedCountsTheWholeSchedule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		opts     []loadtest.Option
		cutAfter time.Duration
		planned  int64
	}{
		{"complete", []loadtest.Option{loadtest.WithLoad(constant(100, 500*time.Millisecond))}, 0, 50},
		{"interrupted", []loadtest.Option{loadtest.WithLoad(constant(100, 2*time.Second))}, 200 * time.Millisecond, 200},
		{"waves", []loadtest.Option{loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(4),
			loadtest.WithLoad(constant(80, 500*time.Millisecond))}, 0, 40},
		{"linear, interrupted", []loadtest.Option{loadtest.WithLoad(pacing.LoadProfile{Pacing: pacing.Linear,
			Rate: 100, EndRate: 300, Duration: 2 * time.Second})}, 100 * time.Millisecond, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			opts := append([]loadtest.Option{loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false)}, tc.opts...)
			if tc.cutAfter > 0 {
				// The cut counts from the attack's start, as the progress
				// reports it: a timer started here also ran through the
				// set-up, and on a loaded machine it fired during the
				// preflight, which then failed with context canceled.
				opts = append(opts, loadtest.WithProgress(5*time.Millisecond, func(p loadtest.Progress) {
					if p.Elapsed >= tc.cutAfter {
						cancel()
					}
				}))
			}
			rec, err := newTester(fastTarget(t), opts...).Run(ctx, t.TempDir())
			require.NoError(t, err)
			assert.InDelta(t, tc.planned, rec.Generator.Planned, 1)
			// Every hit was built once, whoever built it: sequence numbers
			// 0, 1, 2, ... (a wave's requests share their hit's) with one
			// partner_trx_id per hit (per wave).
			ids := map[string]int{}
			var seqs []uint64
			for _, p := range recordtest.Payments(t, rec) {
				ids[p.ID]++
				seqs = append(seqs, p.Seq)
			}
			slices.Sort(seqs)
			seqs = slices.Compact(seqs)
			for i, s := range seqs {
				require.Equal(t, uint64(i), s)
			}
			if tc.name == "waves" {
				assert.Len(t, ids, len(recordtest.Payments(t, rec))/4)
			} else {
				assert.Len(t, ids, len(recordtest.Payments(t, rec)))
			}
			if tc.cutAfter > 0 {
				assert.Less(t, rec.Generator.Sent, rec.Generator.Planned/2)
			}
		})
	}
}

// slowTarget answers every request after hold, like fastTarget, and records
// the most requests it held at once.
func slowTarget(t *testing.T, hold time.Duration, peak *atomic.Int64) *profiles.Profile {
	t.Helper()
	var in atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := in.Add(1)
		defer in.Add(-1)
		for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
		}
		time.Sleep(hold)
		_, _ = w.Write([]byte(`{"status":true,"message":"ok","data":null}`))
	}))
	t.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

// heldTogether answers every request at once but the payments: each is
// held until n of them are held at once (or its client gives up), then
// all are answered; it records the most payments it held at once.
func heldTogether(t *testing.T, n int64, peak *atomic.Int64) *profiles.Profile {
	t.Helper()
	var in atomic.Int64
	all := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/client/v2/payment" {
			held := in.Add(1)
			for old := peak.Load(); held > old && !peak.CompareAndSwap(old, held); old = peak.Load() {
			}
			if held >= n {
				once.Do(func() { close(all) })
			}
			select {
			case <-all:
			case <-r.Context().Done():
			}
			in.Add(-1)
		}
		_, _ = w.Write([]byte(`{"status":true,"message":"ok","data":null}`))
	}))
	t.Cleanup(srv.Close)
	return profiles.Reference(srv.URL)
}

// TestWorkersAndConnectionsScaleWithTheRate: by default nothing caps the
// connections, and the worker cap is what the rate starts within one
// timeout, which a run that keeps its schedule never reaches: at 1,000/s
// against a server that holds the payments until 65 are held at once,
// 65 requests are in flight at once, each on its own connection, and no
// cap is reported as the limit. (A default of 64 connections made requests
// queue for one.) The server, not a delay, makes the requests overlap, so
// a loaded machine that sends late only makes them wait longer.
func TestWorkersAndConnectionsScaleWithTheRate(t *testing.T) {
	t.Parallel()
	var peak atomic.Int64
	rec, rep := run(t, heldTogether(t, 65, &peak), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(1000, 400*time.Millisecond)))
	g := rec.Generator
	assert.Equal(t, 5000, rec.Meta.MaxWorkers, "worker cap: 1,000/s × the 5 s timeout")
	assert.Zero(t, rec.Meta.MaxConnections, "connection cap")
	assert.Greater(t, g.PeakWorkers, int64(64), "peak workers; %+v", g)
	assert.Greater(t, g.PeakInFlight, int64(64), "peak in flight; %+v", g)
	assert.Greater(t, peak.Load(), int64(64), "requests the server held at once; %+v", g)
	assert.Zero(t, g.WorkerWaits)
	assert.Zero(t, g.ConnWaits)
	for _, r := range rep.Generator.Reasons {
		assert.NotContains(t, r, "--max-", "a cap named as the limit")
	}
}

// TestACapIsReportedAsTheLimit: a cap the user chose, when reached, is
// named in the report as what limited the run, not the server.
func TestACapIsReportedAsTheLimit(t *testing.T) {
	t.Parallel()
	var peak atomic.Int64
	rec, rep := run(t, slowTarget(t, 50*time.Millisecond, &peak), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(400, 300*time.Millisecond)), loadtest.WithMaxWorkers(4), loadtest.WithMaxConnections(4))
	assert.LessOrEqual(t, peak.Load(), int64(4), "requests the server held at once")
	assert.Positive(t, rec.Generator.WorkerWaits)
	assert.True(t, rep.Generator.Limited)
	assert.False(t, rep.Generator.HeldByServer)
	assert.Contains(t, strings.Join(rep.Generator.Reasons, "\n"), "all 4 workers were busy")
}

// TestPacedRunBehindIsRatedOverItsSendingTime: a paced run that cannot keep
// up (one worker, 20 ms a request, 200/s asked) keeps sending for a grace
// past its duration; its achieved rate is its sends over the time it really
// sent, not over the shorter nominal duration.
func TestPacedRunBehindIsRatedOverItsSendingTime(t *testing.T) {
	t.Parallel()
	const d = 500 * time.Millisecond
	var peak atomic.Int64
	rec, rep := run(t, slowTarget(t, 20*time.Millisecond, &peak), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(200, d)), loadtest.WithMaxWorkers(1), loadtest.WithMaxConnections(1))
	g := rec.Generator
	require.Positive(t, g.Sent)
	require.Greater(t, g.Sending, d, "the run fell behind and used its grace")
	assert.InDelta(t, float64(g.Sent)/g.Sending.Seconds(), rep.Generator.AchievedRate, 1e-9)
	assert.Less(t, rep.Generator.AchievedRate, float64(g.Sent)/d.Seconds())
}

// TestMaxRateRunNeedsAWorkerCap: without a schedule, a cap sets the rate
// of a max-rate run, so one must be given (as vegeta asks for -max-workers).
func TestMaxRateRunNeedsAWorkerCap(t *testing.T) {
	t.Parallel()
	_, err := newTester(fastTarget(t), loadtest.WithCatalog(oneProduct), loadtest.WithReconcile(false),
		loadtest.WithLoad(constant(0, 100*time.Millisecond))).Run(context.Background(), t.TempDir())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--max-workers")
}

// TestDeadTargetAtReconciliation: a target gone when the attack ends is
// said in one line, and the reconciliation stops at once instead of
// waiting out a look-up timeout per created id.
func TestDeadTargetAtReconciliation(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	kill := killAtTheEnd(srv)
	rec, rep := run(t, profiles.Reference(srv.URL), loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, 500*time.Millisecond)),
		loadtest.WithProgress(time.Hour, kill), loadtest.WithTimeout(5*time.Second))
	assert.Contains(t, rec.Meta.ReconcileStopped, "the target did not answer at reconciliation time (Get: dial tcp")
	assert.Contains(t, rec.Meta.ReconcileStopped, "nothing was looked up or read", "not one timeout per created id")
	assert.False(t, rep.Passed)
	txt := text(t, rep)
	assert.Equal(t, 3, strings.Count(txt, "the target did not answer at reconciliation time"), "once in its finding, once where the run is described, once among the failures:\n%s", txt)
	assert.Regexp(t, `\n  1\. the run could not reconcile its payments: .*\n     so [0-9,]+ created ids were not looked up`, txt)
}

// killAtTheEnd is a progress hook that stops srv when the attack ends.
func killAtTheEnd(srv *httptest.Server) func(loadtest.Progress) {
	var once sync.Once
	return func(p loadtest.Progress) {
		if p.Final {
			once.Do(func() { _ = srv.Listener.Close(); srv.CloseClientConnections() })
		}
	}
}

// TestDeadTargetAfterAFaultSaysSoAtOnce: a target killed by a fault of the
// nemesis and not restarted is waited for at reconciliation time (a fault
// may restart it), but the run says so when it starts waiting, not only
// when it gives up; the record and its page then say it was not reconciled,
// and the verdict fails what could not be checked.
func TestDeadTargetAfterAFaultSaysSoAtOnce(t *testing.T) {
	t.Parallel()
	srv := httpapitest.NewServer(t)
	kill := killAtTheEnd(srv)
	step, err := nemesis.ParseStep("at 100ms: true")
	require.NoError(t, err)
	logs := &logRecords{}
	dir := t.TempDir()
	rec, rep := runIn(t, dir, profiles.Reference(srv.URL), loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(50, 500*time.Millisecond)),
		loadtest.WithProgress(time.Hour, kill), loadtest.WithNemesis(nemesis.Schedule{step}, nil), loadtest.WithReconcileTimeout(time.Second),
		loadtest.WithLogger(slog.New(logs)))
	require.NotEmpty(t, rec.Meta.Faults)
	msgs := logs.messages()
	require.NotEmpty(t, msgs)
	assert.Regexp(t, `^the target does not answer after the attack \(.+\): waiting up to 1 s for it to come back before reconciling$`, msgs[0],
		"said before the wait: %q", msgs)
	assert.Contains(t, msgs[len(msgs)-1], "the target did not answer at reconciliation time")

	assert.False(t, rec.Meta.Reconciled, "not reconciled")
	require.NoError(t, report.WriteArtifacts(dir, rec, rep))
	saved, err := record.ReadDir(dir)
	require.NoError(t, err)
	assert.False(t, saved.Meta.Reconciled, "%s says reconciled: false", record.FileShard)
	page, err := os.ReadFile(filepath.Join(dir, report.FileHTML))
	require.NoError(t, err)
	pageHas(t, string(page), "<dt>reconciled</dt><dd>false</dd>")
	assert.False(t, rep.Passed)
	require.NotNil(t, rep.Reconciliation, "what could not be checked is judged")
	assert.Regexp(t, `\n  1\. the run could not reconcile its payments: .*\n     so [0-9,]+ created ids were not looked up`, text(t, rep))
}

// logRecords is a slog.Handler that keeps the messages logged, in order.
type logRecords struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

func (l *logRecords) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}

// statusAmountsDrift serves the reference with its status-amount-drifts
// fault (a rupiah more on a transaction's total on every look-up after its
// second) behind a proxy that relays each payment status look-up three
// times and answers the last: every look-up the load tester makes finds the
// payment, with a total other than the one it was created with.
func statusAmountsDrift(t *testing.T) *profiles.Profile {
	t.Helper()
	p := startReference(t, reference.FaultStatusAmountDrifts)
	ref, err := url.Parse(p.BaseURL)
	require.NoError(t, err)
	proxy := httptest.NewServer(recordtest.Paired(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/client/v2/payment/status" {
			for range 2 {
				forward(httptest.NewRecorder(), r, ref.Host)
			}
		}
		forward(w, r, ref.Host)
	})))
	t.Cleanup(proxy.Close)
	p.BaseURL = proxy.URL
	return p
}

// TestStatusAmountsAreGradedByTheirReading: a look-up that finds a payment
// with other amounts breaks the reading status-record-amounts, not the
// document: the run passes with a warning naming the reading, and a strict
// run fails. (Its payments are held in pairs, and its waves put the
// wallets and the reused ids to the test: a run that did not would be
// INCOMPLETE, not a pass.)
func TestStatusAmountsAreGradedByTheirReading(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, statusAmountsDrift(t), wave...)
	out := text(t, rep)
	r := rep.Reconciliation
	require.NotNil(t, r, out)
	require.Positive(t, r.Created, out)
	assert.True(t, rep.Passed, out)
	assert.Zero(t, r.ViolationCount(), out)
	assert.Equal(t, r.Created, r.WarningCounts["status-record-amounts"], out)
	assert.Contains(t, out, fmt.Sprintf("\nPASS with %d warnings (readings of the document not followed; --strict makes them failures)\n", r.Created))
	assert.Contains(t, out, "WARNING (reading status-record-amounts): ")
	assert.Contains(t, out, "amount.total is ")
	assert.Contains(t, out, contract.MustReading("status-record-amounts").Sentence)
	var page bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&page))
	assert.Contains(t, page.String(), `<details id="warnings-list">`)
	assert.Contains(t, page.String(), "WARNING (reading status-record-amounts)")
	js, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"warning_counts":{"status-record-amounts":`)

	v, err := verdict.Judge(rec, verdict.DefaultHistoryTimeout)
	require.NoError(t, err)
	v.Strict = true
	strict := report.BuildReport(rec, v, nil)
	out = text(t, strict)
	assert.False(t, strict.Passed, out)
	assert.Contains(t, strict.Failures, fmt.Sprintf("reading status-record-amounts (strict run): %d checks failed", r.Created), out)
	t.Log("\n" + out)
}
