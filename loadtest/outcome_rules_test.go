package loadtest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	"github.com/partnercommerce/conformance/loadtest/report"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/tsenart/vegeta/v12/lib/plot"

	"github.com/partnercommerce/conformance/profiles"
	"github.com/partnercommerce/conformance/reference"
	"github.com/partnercommerce/conformance/reference/httpapi"
)

// referenceExcept serves the reference on 127.0.0.1, except that payment
// creation is answered by create whenever create returns true.
func referenceExcept(t *testing.T, create func(w http.ResponseWriter, r *http.Request) bool) *profiles.Profile {
	t.Helper()
	released := make(chan struct{})
	ds, err := reference.DefaultDataset()
	require.NoError(t, err)
	st, err := reference.NewStore(ds)
	require.NoError(t, err)
	ref := httpapi.NewServer(slog.New(slog.DiscardHandler), st)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/client/v2/payment" {
			body, err := io.ReadAll(r.Body) // so that a client hanging up cancels r.Context()
			if err != nil {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if create(w, r.WithContext(context.WithValue(r.Context(), releaseKey{}, released))) {
				return
			}
		}
		ref.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(released) }) // runs first: frees the hanging handlers
	return profiles.Reference(srv.URL)
}

type releaseKey struct{}

// hang answers nothing until the client gives up or the test ends.
// referenceCatalog is part of the reference's catalog, given to runs whose
// short request timeout would not leave time to discover it on a busy
// machine.
var referenceCatalog = &record.Catalog{
	Products: []record.Product{
		{ID: 1001, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300},
		{ID: 1002, SubCategory: "prabayar", BasePrice: 11000, FinalPrice: 11550},
	},
	SubCategories: []string{"prabayar", "paket-data"},
}

func hang(_ http.ResponseWriter, r *http.Request) bool {
	released, _ := r.Context().Value(releaseKey{}).(chan struct{})
	select {
	case <-r.Context().Done():
	case <-released:
	}
	return true
}

// TestDeadPaymentEndpointFailsTheRun: payment creation hangs, resets or
// announces a huge body and closes, while the reads still answer. The
// mixed run must fail, naming the operation (today: PASS).
func TestDeadPaymentEndpointFailsTheRun(t *testing.T) {
	t.Parallel()
	cases := map[string]func(http.ResponseWriter, *http.Request) bool{
		"hangs": hang,
		"resets": func(w http.ResponseWriter, _ *http.Request) bool {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return true
		},
		"announces 10 GB and closes": func(w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Content-Length", "10000000000")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"status":true,`))
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return true
		},
	}
	for name, create := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, rep := run(t, referenceExcept(t, create), loadtest.WithScenario(loadtest.ScenarioMixed),
				loadtest.WithLoad(constant(50, 400*time.Millisecond)), loadtest.WithTimeout(2*time.Second),
				loadtest.WithCatalog(referenceCatalog), loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}),
				loadtest.WithReconcile(false), loadtest.WithDrain(3*time.Second))
			require.Positive(t, rep.Ops[record.OpCreate].Requests)
			require.Positive(t, rep.Ops[record.OpList].Allowed+rep.Ops[record.OpSync].Allowed, "the reads still answer")
			assert.False(t, rep.Passed)
			assert.Contains(t, strings.Join(rep.Failures, "\n"), "create: none of")
			assert.Contains(t, text(t, rep), "\nFAIL\n")
		})
	}
}

// TestUncertainAnswersAboveTheLimitFail: one payment in ten never gets an
// answer. The run fails on the default 1 % limit, and says the server did
// not answer.
func TestUncertainAnswersAboveTheLimitFail(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	p := referenceExcept(t, func(w http.ResponseWriter, r *http.Request) bool {
		if n.Add(1)%10 != 0 {
			return false
		}
		return hang(w, r)
	})
	rec, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(100, 500*time.Millisecond)),
		loadtest.WithTimeout(200*time.Millisecond), loadtest.WithReconcile(false), loadtest.WithCatalog(referenceCatalog),
		loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}))
	require.Positive(t, rep.Uncertain)
	assert.False(t, rep.Passed)
	failures := strings.Join(rep.Failures, "\n")
	assert.Contains(t, failures, "threshold uncertain_pct<=1%: uncertain_pct measured")
	assert.Contains(t, failures, "in scenario create")
	assert.Contains(t, failures, "the server did not answer")

	// A limit the user sets replaces the default.
	th, err := report.MaxThreshold("uncertain_pct", fmt.Sprint(min(100, rep.UncertainPct+1)))
	require.NoError(t, err)
	again := judge(t, rec, th)
	assert.NotContains(t, strings.Join(again.Failures, "\n"), "uncertain_pct")
}

// TestBodyLargerThanTheLimitIsNamed: a body cut at the 1 MiB read limit is
// reported as such, not as a JSON decoding error.
func TestBodyLargerThanTheLimitIsNamed(t *testing.T) {
	t.Parallel()
	big := append([]byte(`{"status":true,"message":"`), bytes.Repeat([]byte("x"), 2<<20)...)
	big = append(big, `"}`...)
	p := referenceExcept(t, func(w http.ResponseWriter, _ *http.Request) bool {
		_, _ = w.Write(big)
		return true
	})
	rec, rep := run(t, p, loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(20, 200*time.Millisecond)),
		loadtest.WithReconcile(false))
	require.NotEmpty(t, recordtest.Results(t, rec))
	for _, r := range recordtest.Results(t, rec) {
		assert.Equal(t, "response larger than 1 MiB", r.Error)
		assert.NotContains(t, r.Error, "unexpected end of JSON input")
	}
	require.NotEmpty(t, rep.Errors)
	assert.Equal(t, "response larger than 1 MiB", rep.Errors[0].Error)
	assert.Equal(t, len(recordtest.Results(t, rec)), rep.Errors[0].Count)
	assert.Contains(t, text(t, rep), "response larger than 1 MiB")
	assert.False(t, rep.Passed)
}

// TestInterruptedRunIsNotAPass: a run cut short is reconciled, fails, says
// INTERRUPTED, and does not blame the generator for the hits not sent.
func TestInterruptedRunIsNotAPass(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec, err := newTester(startReference(t), loadtest.WithScenario(loadtest.ScenarioCreate),
		loadtest.WithLoad(constant(50, time.Minute)), loadtest.WithProgress(100*time.Millisecond, func(p loadtest.Progress) {
			if p.Elapsed > 200*time.Millisecond {
				cancel() // as a signal would, once the attack runs
			}
		})).Run(ctx, t.TempDir())
	require.NoError(t, err)
	rep := judge(t, rec)
	require.NotNil(t, rep.Reconciliation, "reconciled after the interruption")
	assert.True(t, rep.Reconciliation.Passed(), "%+v", rep.Reconciliation.Violations)
	assert.True(t, rep.Interrupted)
	assert.False(t, rep.Passed)
	// The hits the interruption left unsent are not the generator's fault
	// (a late send on a busy machine may still be).
	assert.Less(t, rep.Generator.Sent, rep.Generator.Planned/10)
	for _, r := range rep.Generator.Reasons {
		assert.NotContains(t, r, "scheduled requests")
	}
	assert.Contains(t, text(t, rep), "\nINTERRUPTED\n")
}

// TestWaveRefusedAlikeIsCorrect: a server that refuses every request of a
// wave with the same documented refusal, and debits nothing, is correct.
func TestWaveRefusedAlikeIsCorrect(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/client/v2/payment":
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"status":false,"message":"Saldo dan koin tidak mencukupi."}`)
		case "/client/v2/customer/profile":
			_, _ = io.WriteString(w, `{"status":true,"message":"OK","data":{"balance":{"available":100},"coin":{"available":0}}}`)
		case "/client/v2/product/sync": // the preflight
			_, _ = io.WriteString(w, `{"status":true,"message":"OK","data":null}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, rep := run(t, profiles.Reference(srv.URL), loadtest.WithCatalog(oneProduct), loadtest.WithPaymentMix(loadtest.Weights{record.KindBalance: 1}),
		loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(4), loadtest.WithLoad(constant(40, 300*time.Millisecond)))
	require.NotNil(t, rep.Reconciliation)
	require.Positive(t, rep.Reconciliation.Waves)
	assert.True(t, rep.Reconciliation.Passed(), "%+v", rep.Reconciliation.Violations)
	requireNoFailure(t, rep)
	require.NotNil(t, rep.Exhaustion)
	assert.Equal(t, 100.0, rep.Exhaustion.RefusedPct)
	assert.Contains(t, text(t, rep), "refused with 422")
}

// TestResultsFileReadsInVegetaPlot: the results file of a concurrent mixed
// run numbers each operation's results 0, 1, 2, ... in the order of their
// send times, so vegeta's plot takes every result.
func TestResultsFileReadsInVegetaPlot(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioMixed), loadtest.WithLoad(constant(300, 500*time.Millisecond)),
		loadtest.WithReconcile(false))
	dir := t.TempDir()
	require.NoError(t, report.WriteArtifacts(dir, rec, rep))
	f, err := os.Open(filepath.Join(dir, record.FileResults))
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	dec := vegeta.NewDecoder(bufio.NewReader(f))
	p := plot.New(plot.Label(plot.ErrorLabeler))
	seqs := map[string][]uint64{}
	n := 0
	for {
		var r vegeta.Result
		if err := dec.Decode(&r); err != nil {
			require.True(t, errors.Is(err, io.EOF), "%v", err)
			break
		}
		n++
		require.NoError(t, p.Add(&r), "result %d (%s %d)", n, r.Attack, r.Seq)
		seqs[r.Attack] = append(seqs[r.Attack], r.Seq)
	}
	for op, ss := range seqs {
		slices.Sort(ss)
		for i, s := range ss {
			require.Equal(t, uint64(i), s, "%s: the sequence numbers are 0, 1, 2, ...", op)
		}
	}
	assert.Equal(t, len(recordtest.Results(t, rec)), n)
	assert.Greater(t, len(seqs), 1, "several operations")
	p.Close()
	var html bytes.Buffer
	_, err = p.WriteTo(&html)
	require.NoError(t, err)
}

// TestJSONReportNamesItsUnits: the JSON report's fields say their units.
func TestJSONReportNamesItsUnits(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioCreate), loadtest.WithLoad(constant(20, 200*time.Millisecond)))
	dir := t.TempDir()
	require.NoError(t, report.WriteArtifacts(dir, rec, rep))
	b, err := os.ReadFile(filepath.Join(dir, report.FileReport))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	units, ok := m["units"].(map[string]any)
	require.True(t, ok, "report.json has a units object")
	for _, k := range []string{"durations", "rates", "percentages", "times", "counts"} {
		assert.NotEmpty(t, units[k], k)
	}
}

// TestIdempotencyRateCountsRequests: --rate is requests per second in every
// scenario; the idempotency scenario sends rate ÷ wave size waves a second
// (it used to send rate waves, wave size times the rate asked for).
func TestIdempotencyRateCountsRequests(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
		loadtest.WithLoad(constant(80, time.Second)), loadtest.WithReconcile(false))
	assert.InDelta(t, 80, rec.Generator.Planned, 8) // the schedule, whatever a busy machine manages to send
	assert.InDelta(t, 80, rep.Generator.TargetRate, 8)
	assert.LessOrEqual(t, len(recordtest.Results(t, rec)), 88)
}
