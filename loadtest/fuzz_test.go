package loadtest

import (
	"bytes"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"
	"github.com/partnercommerce/conformance/loadtest/verdict"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"gopkg.in/yaml.v3"
)

// FuzzParseLoadProfile feeds arbitrary bytes to ParseLoadProfile (the
// --load-profile file). It never panics; a profile it accepts is valid,
// within the documented bounds, survives a YAML round trip, and its pacer
// neither panics, nor stops before the first hit, nor schedules more hits in
// the first second than the profile's peak rate.
func FuzzParseLoadProfile(f *testing.F) {
	f.Add([]byte("rate: 50\nduration: 30s\n"))
	f.Add([]byte("pacing: linear\nrate: 0\nend_rate: 400\nduration: 1m\n"))
	f.Add([]byte("pacing: sine\nrate: 50\namplitude: 40\nperiod: 10s\nstart_at: PEAK\nduration: 30s\n"))
	f.Add([]byte("pacing: sine\nrate: 5\namplitude: 40\nperiod: 10s\nduration: 30s\n"))
	f.Add([]byte("rate: .nan\nduration: 1s\n"))
	f.Add([]byte("rate: 1\nduration: 25h\n"))
	f.Add([]byte("rate: 1\nduration: 30\n"))
	f.Add([]byte("rate: 1\nduraton: 1s\n"))
	f.Add([]byte("stages:\n  - {rate: 20, duration: 1s}\n  - {pacing: linear, rate: 20, end_rate: 200, duration: 2s}\n"))
	f.Add([]byte("stages: []\nduration: 1s\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		lp, err := pacing.ParseLoadProfile(data)
		if err != nil {
			assert.Contains(t, err.Error(), "load profile")
			return
		}
		require.NoError(t, lp.Validate())
		assert.Contains(t, []string{pacing.Constant, pacing.Linear, pacing.Sine, pacing.Stages}, lp.Pacing)
		assert.Greater(t, lp.Duration, time.Duration(0))
		assert.LessOrEqual(t, lp.Duration, pacing.MaxDuration)
		for _, r := range []float64{lp.Rate, lp.EndRate, lp.Amplitude} {
			assert.False(t, math.IsNaN(r) || math.IsInf(r, 0) || r < 0, "rate %g", r)
		}
		_ = lp.String()

		out, err := yaml.Marshal(lp)
		require.NoError(t, err)
		lp2, err := pacing.ParseLoadProfile(out)
		require.NoError(t, err, "re-encoded profile does not parse:\n%s", out)
		assert.Equal(t, lp, lp2)

		pacer, err := lp.Pacer()
		require.NoError(t, err)
		if lp.Unbounded() {
			return
		}
		_, stop := pacer.Pace(0, 0)
		require.False(t, stop, "the pacer of %s stops before the first hit", lp)
		peak := max(lp.Rate, lp.EndRate, 0.001) + lp.Amplitude
		for _, st := range lp.Stages {
			peak = max(peak, max(st.Rate, st.EndRate)+st.Amplitude)
		}
		window := min(time.Second, lp.Duration)
		limit := int64(math.Ceil(peak*window.Seconds())) + 2
		if limit > 100_000 {
			return // too many hits to walk here; the bounds above still hold
		}
		s := pacing.Schedule{P: pacer}
		var hits int64
		for hits <= limit {
			due, ok := s.Next()
			if !ok || due > window {
				break
			}
			hits++
		}
		assert.LessOrEqual(t, hits, limit, "%s schedules more than its peak rate %g/s allows in %s", lp, peak, window)
	})
}

// FuzzParseShard feeds arbitrary strings to ParseShard (--shard i/n): an
// accepted shard has 0 ≤ i < n ≤ 9999 and formats back to itself.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", " 3/4 ", "4/4", "-1/2", "0/0", "0/10000", "+1/2", "1/", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := record.ParseShard(s)
		if err != nil {
			return
		}
		require.NoError(t, sh.Validate())
		assert.GreaterOrEqual(t, sh.Count, 1)
		assert.LessOrEqual(t, sh.Count, record.MaxShards)
		assert.GreaterOrEqual(t, sh.Index, 0)
		assert.Less(t, sh.Index, sh.Count)
		again, err := record.ParseShard(sh.String())
		require.NoError(t, err)
		assert.Equal(t, sh, again)
	})
}

// FuzzRunID feeds arbitrary run ids and shards to ValidateRunID and NewIDs
// (--run-id, --shard): a run id is accepted exactly when it is 1 to 20
// characters of [a-z0-9], and every id generated from an accepted run id and
// shard fits in partner_trx_id (≤ 50 characters) and parses back.
func FuzzRunID(f *testing.F) {
	f.Add("svxk1a2b3c", 0, 1, uint64(0))
	f.Add("abcdefghij0123456789", 9998, 9999, uint64(math.MaxUint64))
	f.Add("abcdefghij01234567890", 0, 1, uint64(1))
	f.Add("run-1", 0, 1, uint64(1))
	f.Add("RUN", 0, 1, uint64(1))
	f.Add("", 0, 1, uint64(1))
	f.Add("r\u00e9", 0, 1, uint64(1))
	f.Add("r", 5, 5, uint64(1))
	f.Fuzz(func(t *testing.T, run string, index, count int, seq uint64) {
		err := ValidateRunID(run)
		want := len(run) >= 1 && len(run) <= maxRunIDLen && strings.Trim(run, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
		require.Equal(t, want, err == nil, "ValidateRunID(%q) = %v", run, err)

		sh := record.Shard{Index: index, Count: count}
		ids, err := NewIDs(run, sh)
		if err != nil {
			return
		}
		require.NoError(t, sh.Validate())
		for _, n := range []uint64{seq, 0, math.MaxUint64} {
			id := ids.ID(n)
			assert.LessOrEqual(t, len(id), MaxTrxIDLen, "id %q", id)
			r, i, s, err := parseID(id)
			require.NoError(t, err, "id %q", id)
			assert.Equal(t, run, r)
			assert.Equal(t, index, i)
			assert.Equal(t, n, s)
		}
	})
}

// FuzzParseThreshold feeds arbitrary expressions to ParseThreshold
// (--threshold): an accepted threshold names a known metric, compares with
// <= or >=, has a finite non-negative value (at most 100 for a percentage),
// and its canonical form parses back to the same threshold.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p95<=20ms", "p99 < 1.5s", "success>=99.9%", "duplicate_debits<=0",
		"errors<=NaN", "success>=101", "p99<=-5ms", "<=5", "p99=>5ms", "late_sends>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := report.ParseThreshold(expr)
		if err != nil {
			assert.Contains(t, err.Error(), "threshold")
			return
		}
		checkThreshold(t, th)
	})
}

// FuzzThresholdFlags feeds arbitrary metric names and values to the flag
// constructors MaxThreshold and MinThreshold (--max-p99 50ms, --min-success
// 99.9): the same properties as ParseThreshold, with the flag's operator.
func FuzzThresholdFlags(f *testing.F) {
	f.Add("p99", "50ms")
	f.Add("success", "99.9")
	f.Add("errors", "0")
	f.Add("uncertain", "Inf")
	f.Add("achieved_rate", "NaN%")
	f.Add("p99", "5ms>=1")
	f.Add("nope", "1")
	f.Fuzz(func(t *testing.T, metric, value string) {
		for op, build := range map[string]func(string, string) (report.Threshold, error){"<=": report.MaxThreshold, ">=": report.MinThreshold} {
			th, err := build(metric, value)
			if err != nil {
				continue
			}
			checkThreshold(t, th)
			if !strings.ContainsAny(metric+value, "<> ") {
				assert.Equal(t, op, th.Op)
				assert.Equal(t, metric, th.Metric)
			}
		}
	})
}

func checkThreshold(t *testing.T, th report.Threshold) {
	t.Helper()
	unit, ok := report.MetricUnits[th.Metric]
	require.True(t, ok, "unknown metric %q accepted", th.Metric)
	assert.Contains(t, []string{"<=", ">="}, th.Op)
	require.False(t, math.IsNaN(th.Value) || math.IsInf(th.Value, 0) || th.Value < 0, "value %g accepted from %q", th.Value, th.Expr)
	var canon string
	switch unit {
	case "ms":
		canon = time.Duration(math.Round(th.Value * float64(time.Millisecond))).String()
	case "%":
		assert.LessOrEqual(t, th.Value, 100.0)
		canon = strconv.FormatFloat(th.Value, 'f', -1, 64) + "%"
	default:
		canon = strconv.FormatFloat(th.Value, 'f', -1, 64)
	}
	again, err := report.ParseThreshold(th.Metric + th.Op + canon)
	require.NoError(t, err, "canonical form of %q", th.Expr)
	assert.Equal(t, th.Metric, again.Metric)
	assert.Equal(t, th.Op, again.Op)
	assert.InDelta(t, th.Value, again.Value, 1e-6*max(1, th.Value))
	_ = th.Evaluate(map[string]float64{th.Metric: 1}).String()
}

// FuzzParseWeights feeds arbitrary strings to ParseWeights (--mix and
// --ops): accepted weights name only allowed kinds, are non-negative, sum
// (without overflow) to more than 0, format back to themselves, and pick
// only names with a weight above 0.
func FuzzParseWeights(f *testing.F) {
	for _, s := range []string{"balance=2,coins=1,gateway=1", " gateway = 3 ,", "balance=0,coins=0", "balance=-1",
		"balance", "card=1", "balance=1,balance=0", "balance=9223372036854775807,coins=1"} {
		f.Add(s)
	}
	allowed := []string{record.KindBalance, record.KindCoins, record.KindGateway}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeights(s, allowed...)
		if err != nil {
			assert.Contains(t, err.Error(), "weights")
			return
		}
		sum := new(big.Int)
		for k, v := range w {
			assert.Contains(t, allowed, k)
			assert.GreaterOrEqual(t, v, 0, "weight of %s", k)
			sum.Add(sum, big.NewInt(int64(v)))
		}
		require.Positive(t, sum.Sign(), "weights %v sum to %s", w, sum)
		require.True(t, sum.IsInt64() && sum.Int64() == int64(w.total()), "weights %v sum to %s, total() says %d", w, sum, w.total())

		again, err := ParseWeights(w.String(), allowed...)
		require.NoError(t, err)
		assert.Equal(t, w, again)
		for _, x := range []uint64{0, 1, 2, 3, 1 << 32, math.MaxUint64} {
			k := w.picker(kindOrder).pick(x)
			assert.Positive(t, w[k], "pick(%d) chose %q from %v", x, k, w)
		}
	})
}

// FuzzReadLedger feeds arbitrary bytes to ReadLedger (the ledger.jsonl of
// another machine, read by `loadtest merge`): it errors or returns entries
// that WriteLedger writes back to the same entries, and Reconcile on them
// never panics and keeps its counters consistent.
func FuzzReadLedger(f *testing.F) {
	for _, s := range ledgerSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ledger, err := record.ReadLedger(bytes.NewReader(data))
		if err != nil {
			require.Nil(t, ledger)
			return
		}
		var buf bytes.Buffer
		require.NoError(t, record.WriteLedger(&buf, ledger))
		again, err := record.ReadLedger(&buf)
		require.NoError(t, err)
		assert.Equal(t, ledger, again)
		checkReconciliation(t, verdict.Reconcile(ledger, nil, true), len(ledger))
	})
}

func ledgerSeeds() []string {
	return []string{
		`{"partner_trx_id":"r-0-1","seq":1,"account":"a","kind":"balance","product_id":1002,"max_balance":5000,"outcome":"created","code":200,"amount":{"total":5000,"balance_used":5000},"lookup":{"code":200,"amount":{"total":5000,"balance_used":5000}}}` + "\n" +
			`{"partner_trx_id":"r-0-1","seq":2,"account":"a","kind":"balance","outcome":"created","code":200}` + "\n",
		`{"partner_trx_id":"r-0-2","seq":2,"wave_size":3,"account":"a","outcome":"duplicate","code":409}` + "\n" +
			`{"partner_trx_id":"r-0-2","seq":3,"wave_size":3,"account":"a","outcome":"uncertain","max_coins":9}` + "\n",
		"",
		"null\n",
		`{"seq":-1}`,
		`{"partner_trx_id":"r-0-3","amount":{"total":"5"}}`,
		`{"partner_trx_id":"r-0-4"` + "\n",
		"[]\n",
	}
}

func checkReconciliation(t *testing.T, r *verdict.Reconciliation, requests int) {
	t.Helper()
	require.NotNil(t, r)
	assert.Equal(t, requests, r.Requests)
	assert.LessOrEqual(t, r.IDs, r.Requests)
	assert.LessOrEqual(t, r.Created+r.UncertainIDs, r.IDs)
	assert.LessOrEqual(t, r.Uncertain, r.Requests)
	assert.GreaterOrEqual(t, r.Duplicates, 0)
	total, omitted := 0, 0
	for inv, n := range r.Counts {
		assert.Contains(t, []string{verdict.InvContract, verdict.InvUniqueID, verdict.InvIdempotency, verdict.InvLookup, verdict.InvBalance, verdict.InvCoins}, inv)
		total += n
		omitted += r.Omitted(inv)
	}
	assert.Equal(t, total, r.ViolationCount())
	assert.Equal(t, total, len(r.Violations)+omitted)
}

// FuzzReadArtifacts writes arbitrary shard.json, results.bin and
// ledger.jsonl files into a directory and reads it as `loadtest merge` does
// with the directories of other machines. ReadArtifacts never panics; on
// success the shard is valid, every result survives the write/read cycle of
// results.bin, and merging the outcome alone terminates.
func FuzzReadArtifacts(f *testing.F) {
	for _, s := range artifactSeeds(f) {
		f.Add(s.shard, s.results, s.ledger)
	}
	f.Fuzz(func(t *testing.T, shard, results, ledger []byte) {
		dir := t.TempDir()
		for name, data := range map[string][]byte{record.FileShard: shard, record.FileResults: results, record.FileLedger: ledger} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
		}
		o, err := record.ReadDir(dir)
		if err != nil {
			require.Nil(t, o)
			return
		}
		require.NoError(t, o.Meta.Shard.Validate())
		payments := 0
		ledgerErr := o.EachPayment(func(*record.Payment) error { payments++; return nil })
		if o.Meta.Reconciled {
			v, err := verdict.Judge(o, time.Second)
			if ledgerErr != nil {
				require.Error(t, err, "a ledger that cannot be read is not reconciled")
				return
			}
			require.NoError(t, err)
			checkReconciliation(t, v.Reconciliation, payments)
		}
		count := 0
		resultsErr := o.EachResult(func(r *record.Result) error {
			count++
			again := record.FromVegeta(r.Vegeta())
			again.Shard = r.Shard
			assert.True(t, r.Scheduled.Equal(again.Scheduled), "result %d: scheduled %s comes back as %s", count, r.Scheduled, again.Scheduled)
			again.Scheduled = r.Scheduled
			assert.Equal(t, *r, again, "result %d", count)
			return nil
		})
		m, err := record.Merge([]*record.Run{o}, false)
		if err == nil {
			require.NoError(t, resultsErr)
			assert.Equal(t, count, m.Tally.Requests())
		}
	})
}

type artifactSeed struct{ shard, results, ledger []byte }

// artifactSeeds builds the seeds of FuzzReadArtifacts: a reconciled
// single-shard run, a shard of a split run with a plain vegeta result, and
// files that are empty or truncated.
func artifactSeeds(tb testing.TB) []artifactSeed {
	tb.Helper()
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	gob := func(rs ...vegeta.Result) []byte {
		var buf bytes.Buffer
		enc := vegeta.NewEncoder(&buf)
		for i := range rs {
			require.NoError(tb, enc.Encode(&rs[i]))
		}
		return buf.Bytes()
	}
	created := (&record.Result{Result: vegeta.Result{Attack: record.OpCreate, Seq: 1, Code: 200, Timestamp: at.Add(time.Millisecond), Latency: 3 * time.Millisecond,
		Method: "POST", URL: "http://x/client/v2/payment"}, Scheduled: at, Expected: true}).Vegeta()
	violating := (&record.Result{Result: vegeta.Result{Attack: record.OpStatus, Seq: 2, Code: 500, Timestamp: at, Error: "500 Internal Server Error"},
		Scheduled: at, Violation: "§1: not JSON"}).Vegeta()
	plain := vegeta.Result{Attack: "vegeta", Seq: 7, Code: 204, Timestamp: at}
	ledger := []byte(ledgerSeeds()[0])
	single := []byte(`{"meta":{"run_id":"r","scenario":"create","shard":{"index":0,"count":1},"load":{"pacing":"constant","rate":1,"duration":1000000000},"reconciled":true},` +
		`"generator":{"planned":2,"sent":2},"accounts":[{"account":"a","shard":0,"before":{"balance":10000,"coins":5,"at":"2025-01-02T03:04:05Z"},"after":{"balance":5000,"coins":5,"at":"2025-01-02T03:04:06Z"}}]}`)
	split := []byte(`{"meta":{"run_id":"r","scenario":"mixed","shard":{"index":1,"count":3}},"accounts":[]}`)
	return []artifactSeed{
		{single, gob(created, violating), ledger},
		{split, gob(plain), []byte(ledgerSeeds()[1])},
		{[]byte(`{"meta":{"shard":{"index":0,"count":0}}}`), nil, nil},
		{[]byte(`{"meta":{"shard":{"index":0,"count":1000000000000}}}`), nil, nil},
		{single, gob(created)[:20], ledger},
		{[]byte(`{"meta":`), nil, nil},
	}
}

// FuzzParseRate: a rate flag (--rate 100/1s) is read or refused, never
// read as a negative, NaN or infinite rate.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100", "100/1s", "100/s", "6000/1m", "1/500ms", "-1", "NaN", "1e400", "1/0s", "5/1e-9s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := pacing.ParseRate(s)
		if err != nil {
			assert.Contains(t, err.Error(), "rate")
			return
		}
		assert.False(t, math.IsNaN(r) || math.IsInf(r, 0) || r < 0, "%q read as %g", s, r)
	})
}
