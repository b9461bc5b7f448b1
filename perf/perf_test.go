package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPaymentTemplateRendersTheReferenceAnswer(t *testing.T) {
	body, err := referenceAnswer()
	require.NoError(t, err)
	tpl, err := newPaymentTemplate(body)
	require.NoError(t, err)

	var orig struct {
		Data struct {
			Transaction struct {
				ID int64 `json:"id"`
			} `json:"transaction"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &orig))
	same := tpl.render(nil, orig.Data.Transaction.ID, []byte(`"perf-static-0000000001"`))
	assert.Equal(t, string(body), string(same), "the template renders the captured answer byte for byte")

	var got map[string]any
	require.NoError(t, json.Unmarshal(tpl.render(nil, 123456789, []byte(`"abc\"d"`)), &got))
	tx := got["data"].(map[string]any)["transaction"].(map[string]any)
	assert.InDelta(t, 123456789, tx["id"], 0)
	assert.Equal(t, `abc"d`, tx["partner_trx_id"])
	assert.True(t, strings.HasSuffix(tx["transaction_number"].(string), "/123456789"), tx["transaction_number"])
	short := tpl.render(nil, 42, []byte(`"x"`))
	assert.Contains(t, string(short), `/00000042"`)
}

func TestPartnerTrxID(t *testing.T) {
	for _, tc := range []struct {
		body string
		want string
		ok   bool
	}{
		{`{"partner_trx_id":"load-1-2"}`, `"load-1-2"`, true},
		{`{"partner_trx_id" : "spaced"}`, `"spaced"`, true},
		{`{"partner_trx_id":"a\"b"}`, `"a\"b"`, true},
		{`{"partner_trx_id":"<"}`, `"<"`, true},
		{`{"product_id":1}`, ``, false},
		{`{"partner_trx_id":""}`, ``, false},
		{`not json`, ``, false},
	} {
		got, ok := partnerTrxID([]byte(tc.body))
		assert.Equal(t, tc.ok, ok, tc.body)
		if tc.ok {
			assert.Equal(t, tc.want, string(got), tc.body)
		}
	}
}

func TestStaticHandlerWritesTheReferenceAnswer(t *testing.T) {
	h, err := StaticHandler()
	require.NoError(t, err)
	want, err := referenceAnswer()
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodPost, paymentPath, strings.NewReader(paymentBody("x"))))
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, string(want), rec.Body.String())
}

func TestTargetAnswersPaymentsWithTheirIdsAndReadsLikeTheReference(t *testing.T) {
	h, err := TargetHandler()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	seen := map[string]bool{}
	for _, id := range []string{"gen-1", "gen-2"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+paymentPath, strings.NewReader(paymentBody(id)))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var ans struct {
			Data struct {
				Transaction struct {
					Number string `json:"transaction_number"`
					TrxID  string `json:"partner_trx_id"`
				} `json:"transaction"`
			} `json:"data"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&ans))
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, id, ans.Data.Transaction.TrxID)
		assert.False(t, seen[ans.Data.Transaction.Number], "a fresh transaction number each time")
		seen[ans.Data.Transaction.Number] = true
	}

	profile := func() (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/client/v2/customer/profile", nil)
		req.Header.Set("X-SECRET-KEY", paymentSecret)
		req.Header.Set("Authorization", "Bearer "+paymentToken)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, first := profile()
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, first, "Kasir Beban 1")
	_, again := profile()
	assert.Equal(t, first, again)
}

func TestParseWrk(t *testing.T) {
	clean := `Running 5s test @ http://127.0.0.1:1234
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.2ms  518.44us   5.48ms   93.87%
  130557 requests in 5.00s, 92.85MB read
Requests/sec:  26100.57
`
	r, err := parseWrk([]byte(clean))
	require.NoError(t, err)
	assert.Equal(t, Rate{Requests: 130557}, r)

	failing := clean + "  Socket errors: connect 0, read 3, write 1, timeout 2\n  Non-2xx or 3xx responses: 7\n"
	r, err = parseWrk([]byte(failing))
	require.NoError(t, err)
	assert.Equal(t, Rate{Requests: 130557, Failed: 13}, r)

	_, err = parseWrk([]byte("unable to connect to 127.0.0.1:1 Connection refused"))
	assert.Error(t, err)
}

func TestWrkScriptPostsThePerfPayment(t *testing.T) {
	s := (&Wrk{Threads: 1, Connections: 2}).script()
	assert.Contains(t, s, `wrk.headers["X-SECRET-KEY"] = "`+paymentSecret+`"`)
	assert.Contains(t, s, `"partner_trx_id":"' .. prefix .. counter .. '"}'`)
	assert.Contains(t, s, `"`+paymentPath+`"`)
}

func TestParseRSS(t *testing.T) {
	n, err := parseRSS([]byte("Name:\tx\nVmPeak:\t 9 kB\nVmRSS:\t   15236 kB\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(15236*1024), n)
	_, err = parseRSS([]byte("Name:\tx\n"))
	assert.Error(t, err)
}

func TestRounds(t *testing.T) {
	r := Rounds{Values: []float64{0.6, 0.5, 0.9, 0.7}}
	assert.InDelta(t, 0.65, r.Median(), 1e-9)
	lo, hi := r.Range()
	assert.InDelta(t, 0.5, lo, 0)
	assert.InDelta(t, 0.9, hi, 0)
	assert.InDelta(t, 0.7, Rounds{Values: []float64{0.7, 0.1, 0.9}}.Median(), 0)
	assert.Zero(t, Rounds{}.Median())
}

func TestStoredResult(t *testing.T) {
	r := StoredResult{Checkpoints: []Checkpoint{
		{Stored: 0, RSS: 10 << 20, Rate: 1000},
		{Stored: 100_000, RSS: 60 << 20, Rate: 950},
		{Stored: 1_000_000, RSS: 60<<20 + 450_000_000, Rate: 800},
	}}
	assert.InDelta(t, 500, r.BytesPerPayment(), 1e-9)
	assert.InDelta(t, 0.8, r.Flatness(), 1e-9)
	assert.Zero(t, StoredResult{Checkpoints: r.Checkpoints[:2]}.BytesPerPayment(), "one checkpoint with payments is no slope")
}

func TestReportMarksGoals(t *testing.T) {
	var b strings.Builder
	Report{Client: "c", LoadBefore: "0.1", LoadAfter: "0.2",
		Ratio:  &RatioResult{Static: Rounds{[]float64{100}}, Reference: Rounds{[]float64{85}}, Ratio: Rounds{[]float64{0.85}}},
		Stored: &StoredResult{Checkpoints: []Checkpoint{{0, 1, 100}, {100_000, 2, 95}, {1_000_000, 2 + 900_000_000, 50}}},
	}.WriteMarkdown(&b)
	out := b.String()
	assert.Contains(t, out, "| POST payment, reference / static-JSON handler | 0.85 |")
	assert.Contains(t, out, "| at least 0.80 | yes |")
	assert.Contains(t, out, "| Bytes of process memory per stored payment | 1000 B |")
	assert.Contains(t, out, "| at most 512 B | no |")
	assert.Contains(t, out, "| Payment rate at 1M stored / at 0 | 0.50 |")
	assert.Contains(t, out, "| at least 0.90 | no |")
}

func TestServerRatioRunsAlternatingRoundsOnChildProcesses(t *testing.T) {
	var order []string
	res, err := ServerRatio(t.Context(), RatioConfig{
		Client: &GoClient{Connections: 2, Prefix: "t-"}, Static: child(t, "static"), Reference: child(t, "reference"),
		Rounds: 2, Window: time.Second,
		Log: func(format string, args ...any) { order = append(order, args[1].(string)) },
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"static", "reference", "reference", "static"}, order)
	require.Len(t, res.Ratio.Values, 2)
	for i, v := range res.Ratio.Values {
		assert.Greater(t, res.Static.Values[i], 0.0)
		assert.InDelta(t, res.Reference.Values[i]/res.Static.Values[i], v, 1e-9)
	}
}

func TestMeasurementsRefuseAServerThatRefusesPayments(t *testing.T) {
	_, err := ServerRatio(t.Context(), RatioConfig{
		Client: &GoClient{Connections: 1, Prefix: "t-"}, Static: child(t, "refuse"), Reference: child(t, "reference"),
		Rounds: 1, Window: time.Second,
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "answers were not 200")
}

func TestStoredFillsToEachCheckpoint(t *testing.T) {
	res, err := Stored(t.Context(), StoredConfig{
		Reference: child(t, "reference"), Client: &GoClient{Connections: 2, Prefix: "w-"}, Fill: 4,
		Checkpoints: []int{0, 3000, 6000}, Window: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	require.Len(t, res.Checkpoints, 3)
	for i, want := range []int64{0, 3000, 6000} {
		c := res.Checkpoints[i]
		if want > 0 {
			assert.GreaterOrEqual(t, c.Stored, want, "reached by filling, plus the windows before")
		}
		assert.Positive(t, c.RSS)
		assert.Positive(t, c.Rate)
	}
	assert.GreaterOrEqual(t, res.Checkpoints[2].RSS, res.Checkpoints[0].RSS)
}

func TestLauncherReportsAServerThatExits(t *testing.T) {
	_, err := child(t, "exit").Start(t.Context())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "told to exit before listening")
	_, err = Launcher{Name: "none", Argv: []string{"/nonexistent/server"}}.Start(t.Context())
	assert.Error(t, err)
}

// scripted answers each Run with the next of its rates (one request per
// payment a second, over a one-second window).
type scripted struct {
	rates []float64
	n     int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Run(context.Context, string, time.Duration) (Rate, error) {
	r := s.rates[s.n%len(s.rates)]
	s.n++
	return Rate{Requests: int64(r), Seconds: 1}, nil
}

func TestStoredTakesTheMedianOfItsWindows(t *testing.T) {
	c := &scripted{rates: []float64{100, 900, 300, 200, 250}}
	res, err := Stored(t.Context(), StoredConfig{
		Reference: child(t, "reference"), Client: c, Checkpoints: []int{0}, Window: time.Second, Windows: 5,
	})
	require.NoError(t, err)
	require.Len(t, res.Checkpoints, 1)
	assert.Equal(t, 5, c.n)
	assert.InDelta(t, 250, res.Checkpoints[0].Rate, 0, "the median, not the first window nor the mean")
}

func TestDurableComparesStateWithMemoryAndTheFloor(t *testing.T) {
	var order []string
	res, err := Durable(t.Context(), DurableConfig{
		Client: &GoClient{Connections: 4, Prefix: "d-"}, Connections: 4, Reference: child(t, "reference"),
		Rounds: 2, Window: time.Second, FloorWindow: 50 * time.Millisecond,
		Log: func(format string, args ...any) { order = append(order, args[1].(string)) },
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"in memory", "with --state", "with --state", "in memory"}, order)
	require.Len(t, res.Ratio.Values, 2)
	for i, v := range res.Ratio.Values {
		assert.InDelta(t, res.Durable.Values[i]/res.Memory.Values[i], v, 1e-9)
		// A journal record of a payment is tens of bytes; nothing on disk
		// (the state not kept) or a whole answer per payment is wrong.
		assert.Greater(t, res.DiskBytes.Values[i], 30.0)
		assert.Less(t, res.DiskBytes.Values[i], 200.0)
		// One round serves at least one payment and at most one per
		// connection (each waits for its answer before it sends again).
		assert.GreaterOrEqual(t, res.PerRound.Values[i], 1.0)
		assert.LessOrEqual(t, res.PerRound.Values[i], 4.0)
		assert.Positive(t, res.FloorMicro.Values[i])
		assert.Positive(t, res.CommitMicro.Values[i])
		assert.GreaterOrEqual(t, res.PeriodMicro.Values[i], res.CommitMicro.Values[i], "rounds run one at a time")
		assert.InDelta(t, res.PerRound.Values[i]/res.FloorMicro.Values[i]*1e6, res.Model.Values[i], res.Model.Values[i]*1e-6)
		assert.InDelta(t, res.Durable.Values[i]/res.Model.Values[i], res.ModelRatio.Values[i], 1e-9)
	}
	var out strings.Builder
	res.WriteRows(&out)
	assert.Contains(t, out.String(), "| POST payment, reference --state / in memory, 4 connections |")
	assert.Contains(t, out.String(), "| POST payment, reference --state / its fdatasync-floor model, 4 connections |")
	assert.Contains(t, out.String(), "| Bytes on disk per payment (--state), 4 connections |")
}

func TestDurableRowsMarkTheGoals(t *testing.T) {
	r := func(v ...float64) Rounds { return Rounds{Values: v} }
	for _, tc := range []struct {
		conns          int
		ratio, model   float64
		wantMemoryGoal string
		wantModelGoal  string
	}{
		{16, 0.40, 0.95, "| (none: see the model's row) | - |", "| at least 0.90 | yes |"},
		{128, 0.75, 0.85, "| at least 0.70 | yes |", "| at least 0.90 | no |"},
		{128, 0.65, 0.91, "| at least 0.70 | no |", "| at least 0.90 | yes |"},
	} {
		var out strings.Builder
		DurableResult{Connections: tc.conns, Memory: r(100), Durable: r(100 * tc.ratio), Ratio: r(tc.ratio), DiskBytes: r(70),
			PerRound: r(6), FloorMicro: r(100), CommitMicro: r(120), PeriodMicro: r(140), Model: r(60000), ModelRatio: r(tc.model)}.WriteRows(&out)
		lines := strings.Split(out.String(), "\n")
		require.Len(t, lines, 4, out.String())
		assert.True(t, strings.HasSuffix(lines[0], tc.wantMemoryGoal), lines[0])
		assert.True(t, strings.HasSuffix(lines[1], tc.wantModelGoal), lines[1])
		assert.Contains(t, lines[1], fmt.Sprintf("| %.2f |", tc.model))
		assert.Contains(t, lines[1], "6.0 payments a round (the journal's records per frame) over a floor of 100 µs")
	}
}

func TestParseCommitsReadsTheJournalsHistograms(t *testing.T) {
	const metrics = `# HELP reference_journal_commit_records The records one group commit made durable.
# TYPE reference_journal_commit_records histogram
reference_journal_commit_records_bucket{le="1"} 3
reference_journal_commit_records_bucket{le="+Inf"} 40
reference_journal_commit_records_sum 250
reference_journal_commit_records_count 40
# HELP reference_journal_commit_seconds One group commit of the journal.
# TYPE reference_journal_commit_seconds histogram
reference_journal_commit_seconds_bucket{le="+Inf"} 40
reference_journal_commit_seconds_sum 0.006
reference_journal_commit_seconds_count 40
# HELP reference_requests_total Requests answered.
# TYPE reference_requests_total counter
reference_requests_total{code="200",operation="createPayment"} 250
`
	c, err := parseCommits(strings.NewReader(metrics))
	require.NoError(t, err)
	assert.Equal(t, commits{frames: 40, records: 250, seconds: 0.006}, c)
	c, err = parseCommits(strings.NewReader("# TYPE go_goroutines gauge\ngo_goroutines 7\n"))
	require.NoError(t, err)
	assert.Equal(t, commits{}, c, "a server in memory has no commits")
	_, err = parseCommits(strings.NewReader("not metrics {"))
	assert.Error(t, err)
}

func TestMeasureFloorWritesAndSyncsInThePreallocatedFile(t *testing.T) {
	dir := t.TempDir()
	f, err := MeasureFloor(t.Context(), dir, 500, 30*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 500, f.Bytes)
	assert.Positive(t, f.Writes)
	assert.GreaterOrEqual(t, f.Elapsed, 30*time.Millisecond)
	assert.Equal(t, f.Elapsed/time.Duration(f.Writes), f.Mean())
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "the floor's file is removed")
	assert.Zero(t, Floor{}.Mean())
}

func TestParseHWM(t *testing.T) {
	n, err := parseHWM([]byte("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t   15236 kB\n"))
	if err != nil || n != 20480*1024 {
		t.Fatalf("parseHWM = %d, %v; want %d", n, err, 20480*1024)
	}
	if _, err := parseHWM([]byte("Name:\tx\nVmRSS:\t 1 kB\n")); err == nil {
		t.Fatal("parseHWM of a status without VmHWM: no error")
	}
}

// TestChildPeakIsTheChildsOwn holds the generators' memory row to the
// child's own peak: a small child of a large parent must not report the
// parent's high-water mark (which Linux's rusage Maxrss carries over exec).
func TestChildPeakIsTheChildsOwn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read from /proc, on Linux only")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	ballast := make([]byte, 256<<20)
	for i := range ballast {
		if i%4096 == 0 {
			ballast[i] = 1
		}
	}
	use, err := runWatched(t.Context(), sleep, []string{"0.3"}, 0, 10*time.Second, 0, nil)
	runtime.KeepAlive(ballast)
	if err != nil {
		t.Fatal(err)
	}
	if use.peakRSS <= 0 || use.peakRSS > 64<<20 {
		t.Fatalf("sleep's peak resident memory read %.1f MiB; want its own few MiB, not its 256 MiB parent's", float64(use.peakRSS)/(1<<20))
	}
}
