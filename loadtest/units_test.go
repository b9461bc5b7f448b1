package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/pacing"
	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/report"

	"github.com/partnercommerce/conformance/api"
	"github.com/partnercommerce/conformance/internal/contract"
	"github.com/partnercommerce/conformance/profiles"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// parseID splits an id made by IDs into its run, shard index and sequence.
func parseID(id string) (run string, shard int, seq uint64, err error) {
	parts := strings.Split(id, "-")
	if len(parts) != 3 {
		return "", 0, 0, errors.New("not a load-test id")
	}
	shard, err1 := strconv.Atoi(parts[1])
	seq, err2 := strconv.ParseUint(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, 0, errors.New("not a load-test id")
	}
	return parts[0], shard, seq, nil
}

func TestIDsUniqueBoundedAndShardsDisjoint(t *testing.T) {
	t.Parallel()
	run := strings.Repeat("z", maxRunIDLen) // the longest run id
	seen := map[string]record.Shard{}
	for i := range 3 {
		sh := record.Shard{Index: i, Count: 3}
		g, err := NewIDs(run, sh)
		require.NoError(t, err)
		for _, seq := range []uint64{0, 1, 9, 10, 11, 99, 100, 101, 1 << 40, ^uint64(0)} {
			id := g.ID(seq)
			assert.LessOrEqual(t, len(id), MaxTrxIDLen, id)
			prev, dup := seen[id]
			assert.False(t, dup, "%s made by shard %s and %s", id, prev, sh)
			seen[id] = sh
			r, s, q, err := parseID(id)
			require.NoError(t, err)
			assert.Equal(t, run, r)
			assert.Equal(t, i, s)
			assert.Equal(t, seq, q)
		}
	}
	// The widest shard index also fits.
	g, err := NewIDs(run, record.Shard{Index: record.MaxShards - 1, Count: record.MaxShards})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(g.ID(^uint64(0))), MaxTrxIDLen)
	// Fresh run ids are valid and differ.
	a, b := NewRunID(), NewRunID()
	require.NoError(t, ValidateRunID(a))
	assert.NotEqual(t, a, b)
}

func TestRunIDAndShardValidation(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "has-dash", "UPPER", strings.Repeat("a", maxRunIDLen+1), "sp ace"} {
		assert.Error(t, ValidateRunID(bad), bad)
	}
	cases := []struct {
		in   string
		want record.Shard
		ok   bool
	}{
		{"0/1", record.Shard{Index: 0, Count: 1}, true},
		{"3/4", record.Shard{Index: 3, Count: 4}, true},
		{" 1/2 ", record.Shard{Index: 1, Count: 2}, true},
		{"4/4", record.Shard{}, false},
		{"-1/4", record.Shard{}, false},
		{"0/0", record.Shard{}, false},
		{"1", record.Shard{}, false},
		{"a/b", record.Shard{}, false},
		{"0/10000", record.Shard{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := record.ParseShard(tc.in)
			if !tc.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseLoadProfile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		yaml    string
		want    pacing.LoadProfile
		planned int64
		err     string
	}{
		{name: "constant", yaml: "rate: 50\nduration: 2s\n",
			want: pacing.LoadProfile{Pacing: pacing.Constant, Rate: 50, Duration: 2 * time.Second}, planned: 100},
		{name: "linear", yaml: "pacing: linear\nrate: 10\nend_rate: 30\nduration: 10s\n",
			want: pacing.LoadProfile{Pacing: pacing.Linear, Rate: 10, EndRate: 30, Duration: 10 * time.Second}, planned: 200},
		{name: "sine", yaml: "pacing: sine\nrate: 20\namplitude: 10\nperiod: 5s\nstart_at: peak\nduration: 10s\n",
			want: pacing.LoadProfile{Pacing: pacing.Sine, Rate: 20, Amplitude: 10, Period: 5 * time.Second, StartAt: "peak", Duration: 10 * time.Second}, planned: 200},
		{name: "max rate", yaml: "rate: 0\nduration: 1s\n", want: pacing.LoadProfile{Pacing: pacing.Constant, Duration: time.Second}},
		{name: "unknown key", yaml: "rate: 5\nduraton: 1s\n", err: "duraton"},
		{name: "no duration", yaml: "rate: 5\n", err: "duration"},
		{name: "unbounded duration", yaml: "rate: 5\nduration: 48h\n", err: "duration"},
		{name: "negative rate", yaml: "rate: -5\nduration: 1s\n", err: "negative"},
		{name: "bad pacing", yaml: "pacing: square\nrate: 5\nduration: 1s\n", err: "square"},
		{name: "sine without period", yaml: "pacing: sine\nrate: 5\nduration: 1s\n", err: "period"},
		{name: "sine amplitude too big", yaml: "pacing: sine\nrate: 5\namplitude: 6\nperiod: 1s\nduration: 1s\n", err: "amplitude"},
		{name: "bad start_at", yaml: "pacing: sine\nrate: 5\nperiod: 1s\nstart_at: top\nduration: 1s\n", err: "start_at"},
		{name: "not yaml", yaml: "rate: [\n", err: "load profile"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lp, err := pacing.ParseLoadProfile([]byte(tc.yaml))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, lp)
			_, err = lp.Pacer()
			require.NoError(t, err)
			if tc.planned > 0 {
				// The schedule honours the pacing within one hit per second of slack.
				p, err := lp.Pacer()
				require.NoError(t, err)
				s := pacing.Schedule{P: p}
				assert.InDelta(t, tc.planned, s.Remaining(lp.Duration), float64(lp.Duration/time.Second)+1)
			}
		})
	}
}

func TestScheduleKeepsDueTimesWhenBehind(t *testing.T) {
	t.Parallel()
	lp := pacing.LoadProfile{Pacing: pacing.Constant, Rate: 100, Duration: time.Second}
	p, err := lp.Pacer()
	require.NoError(t, err)
	s := pacing.Schedule{P: p}
	for n := 1; n <= 100; n++ {
		due, ok := s.Next()
		require.True(t, ok)
		assert.Equal(t, time.Duration(n)*10*time.Millisecond, due, "hit %d", n)
	}
}

func TestParseThreshold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want report.Threshold
		err  bool
	}{
		{in: "p99<=50ms", want: report.Threshold{Metric: "p99", Op: "<=", Value: 50}},
		{in: "p99<50ms", want: report.Threshold{Metric: "p99", Op: "<=", Value: 50}},
		{in: "raw_p50 <= 1.5s", want: report.Threshold{Metric: "raw_p50", Op: "<=", Value: 1500}},
		{in: "success>=99.9", want: report.Threshold{Metric: "success", Op: ">=", Value: 99.9}},
		{in: "success>99.9%", want: report.Threshold{Metric: "success", Op: ">=", Value: 99.9}},
		{in: "duplicate_debits<=0", want: report.Threshold{Metric: "duplicate_debits", Op: "<=", Value: 0}},
		{in: "p99<=50", err: true},
		{in: "success>=101", err: true},
		{in: "nosuch<=1", err: true},
		{in: "p99", err: true},
		{in: "<=5ms", err: true},
		{in: "errors<=-1", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := report.ParseThreshold(tc.in)
			if tc.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			tc.want.Expr = tc.in
			assert.Equal(t, tc.want, got)
		})
	}
	th, err := report.MaxThreshold("p99", "50ms")
	require.NoError(t, err)
	assert.True(t, th.Evaluate(map[string]float64{"p99": 50}).Passed)
	assert.False(t, th.Evaluate(map[string]float64{"p99": 50.1}).Passed)
	th, err = report.MinThreshold("success", "99.9")
	require.NoError(t, err)
	assert.True(t, th.Evaluate(map[string]float64{"success": 100}).Passed)
	assert.False(t, th.Evaluate(map[string]float64{"success": 99.8}).Passed)
}

func TestParseWeights(t *testing.T) {
	t.Parallel()
	w, err := ParseWeights("balance=2, coins=0,gateway=1", record.KindBalance, record.KindCoins, record.KindGateway)
	require.NoError(t, err)
	assert.Equal(t, Weights{record.KindBalance: 2, record.KindCoins: 0, record.KindGateway: 1}, w)
	for _, bad := range []string{"", "balance=0", "cash=1", "balance=-1", "balance"} {
		_, err := ParseWeights(bad, record.KindBalance, record.KindCoins, record.KindGateway)
		assert.Error(t, err, bad)
	}
}

func TestCheckResponse(t *testing.T) {
	t.Parallel()
	codes, err := DocumentedCodes()
	require.NoError(t, err)
	ok := `{"status":true,"message":"Pembayaran berhasil diproses.","data":{"transaction":{"partner_trx_id":"r-0-1","transaction_number":"INV/1",` +
		`"amount":{"total":100,"balance_used":60,"coin_used":80,"coin_value_used":40,"gateway_payment":0}}}}`
	cases := []struct {
		name, op string
		code     int
		body     string
		want     string // substring of the violation; "" for none
	}{
		{"created", record.OpCreate, 200, ok, ""},
		{"undocumented code", record.OpCreate, 404, `{"status":false,"message":"x"}`, "not documented"},
		{"500 on create is not documented", record.OpCreate, 500, `{"status":false,"message":"x"}`, "not documented"},
		{"500 on list is documented", record.OpList, 500, `{"status":false,"message":"x"}`, ""},
		{"text body", record.OpStatus, 404, `not found`, "not one JSON object"},
		{"status as string", record.OpStatus, 200, `{"status":"true","message":"OK"}`, "boolean"},
		{"no message", record.OpSync, 200, `{"status":true}`, "message"},
		{"status null", record.OpStatus, 200, `{"status":null,"message":"OK"}`, "boolean"},
		{"status capitalised", record.OpStatus, 200, `{"Status":true,"message":"OK"}`, "boolean"},
		{"data after the object", record.OpCreate, 200, ok + ` trailing`, "not one JSON object"},
		{"two objects", record.OpStatus, 404, `{"status":false,"message":"x"}{}`, "not one JSON object"},
		{"created without data", record.OpCreate, 200, `{"status":true,"message":"` + MsgCreated + `"}`, "does not decode"},
		{"duplicate exact", record.OpCreate, 409, `{"status":false,"message":"` + MsgDuplicate + `"}`, ""},
		{"duplicate other message", record.OpCreate, 409, `{"status":false,"message":"sudah dipakai"}`, "duplicate"},
		{"wrong success message", record.OpCreate, 200, strings.Replace(ok, "diproses.", "diproses", 1), "message"},
		{"wrong echo", record.OpCreate, 200, strings.Replace(ok, "r-0-1", "r-0-2", 1), "echo"},
		{"bad arithmetic", record.OpCreate, 200, strings.Replace(ok, `"total":100`, `"total":101`, 1), "add up"},
		{"coins not halved", record.OpCreate, 200, strings.Replace(ok, `"coin_used":80`, `"coin_used":40`, 1), "twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := checkResponse(codes, tc.op, tc.code, []byte(tc.body), "r-0-1")
			if tc.want == "" {
				assert.Empty(t, c.violation)
			} else {
				assert.Contains(t, c.violation, tc.want)
			}
		})
	}
}

// TestThresholdOnUnmeasuredMetricFails: a threshold on a metric the run did
// not measure (duplicate debits without reconciliation) fails as "not
// measured" instead of passing on a zero.
func TestThresholdOnUnmeasuredMetricFails(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"duplicate_debits<=0", "invariant_violations<=0", "success>=0"} {
		th, err := report.ParseThreshold(expr)
		require.NoError(t, err)
		res := th.Evaluate(map[string]float64{})
		assert.False(t, res.Passed, expr)
		assert.True(t, res.NotMeasured, expr)
		assert.Contains(t, res.String(), "not measured", expr)
	}

	now := time.Now()
	o := &record.Run{Meta: record.Meta{RunID: "r", Shard: record.SingleShard},
		Results: []record.Result{{Scheduled: now, Op: record.OpCreate, Expected: true, Allowed: true}}} // no Reconciliation
	dup, err := report.MaxThreshold("duplicate_debits", "0")
	require.NoError(t, err)
	p99, err := report.MaxThreshold("p99", "1s")
	require.NoError(t, err)
	rep := report.BuildReport(o, nil, []report.Threshold{dup, p99})
	require.Len(t, rep.Thresholds, 3) // and the default uncertain_pct<=1%
	assert.Equal(t, "uncertain_pct", rep.Thresholds[2].Metric)
	assert.True(t, rep.Thresholds[2].Passed)
	assert.False(t, rep.Thresholds[0].Passed)
	assert.True(t, rep.Thresholds[1].Passed)
	assert.False(t, rep.Passed)
	require.Len(t, rep.Failures, 1)
	assert.Contains(t, rep.Failures[0], "duplicate_debits<=0")
	assert.Contains(t, rep.Failures[0], "not measured")
}

func TestReportStatusCodes(t *testing.T) {
	t.Parallel()
	now := time.Now()
	res := func(code uint16) record.Result {
		return record.Result{Result: vegeta.Result{Code: code, Timestamp: now}, Scheduled: now, Op: record.OpCreate}
	}
	rep := report.BuildReport(&record.Run{Results: []record.Result{res(200), res(409), res(200), res(0)}}, nil, nil)
	assert.Equal(t, map[string]int{"200": 2, "409": 1, "0": 1}, rep.StatusCodes)
	rep = report.BuildReport(&record.Run{}, nil, nil)
	assert.NotNil(t, rep.StatusCodes) // written as {} rather than null
	assert.Empty(t, rep.StatusCodes)
}

func TestStoreMax(t *testing.T) {
	t.Parallel()
	var m atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				storeMax(&m, int64(g*1000+i))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(7999), m.Load())
	storeMax(&m, 5)
	assert.Equal(t, int64(7999), m.Load())
}

// TestPickerChoosesByWeight: the precomputed picker makes the same choice
// as walking the weights in order (the choice a run's hit n gets must not
// depend on how it is computed).
func TestPickerChoosesByWeight(t *testing.T) {
	t.Parallel()
	walk := func(w Weights, order []string, x uint64) string {
		r := int(x % uint64(w.total()))
		for _, k := range order {
			if r < w[k] {
				return k
			}
			r -= w[k]
		}
		return ""
	}
	for _, w := range []Weights{DefaultPaymentMix, DefaultOpMix, {record.KindCoins: 1}, {record.KindBalance: 0, record.KindGateway: 7},
		{record.KindBalance: 3, record.OpSync: 2}} { // a name outside the order is never chosen
		for _, order := range [][]string{kindOrder, opOrder} {
			pk := w.picker(order)
			counts := map[string]int{}
			for n := range uint64(5000) {
				x := mix64(n)
				got := pk.pick(x)
				require.Equal(t, walk(w, order, x), got, "%v over %v, x=%d", w, order, x)
				counts[got]++
			}
			for _, k := range order {
				if w[k] == 0 {
					assert.Zero(t, counts[k], "%s has no weight in %v", k, w)
				}
			}
		}
	}
	assert.Empty(t, Weights{}.picker(kindOrder).pick(1))
}

func TestBearer(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Bearer abc", bearer("abc"))
	assert.Empty(t, bearer(""), "no token, no Authorization header")
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want float64
		bad  bool
	}{
		{in: "100", want: 100},
		{in: "0", want: 0},
		{in: "0.5", want: 0.5},
		{in: "100/1s", want: 100},
		{in: "100/s", want: 100},
		{in: "6000/1m", want: 100},
		{in: "1/500ms", want: 2},
		{in: " 50 / 2s ", want: 25},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "NaN", bad: true},
		{in: "Inf", bad: true},
		{in: "100/0s", bad: true},
		{in: "100/-1s", bad: true},
		{in: "100/x", bad: true},
		{in: "/1s", bad: true},
		{in: "1e308/1ns", bad: true},
	}
	for _, tc := range cases {
		got, err := pacing.ParseRate(tc.in)
		if tc.bad {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.InDelta(t, tc.want, got, 1e-9, tc.in)
	}
}

// TestStagedScheduleRunsEachStageAtItsRate: a load profile of stages runs
// them one after the other, each at its own rate.
func TestStagedScheduleRunsEachStageAtItsRate(t *testing.T) {
	t.Parallel()
	lp, err := pacing.ParseLoadProfile([]byte("stages:\n  - {rate: 10, duration: 1s}\n  - {rate: 100, duration: 1s}\n  - {pacing: linear, rate: 100, end_rate: 300, duration: 1s}\n"))
	require.NoError(t, err)
	assert.Equal(t, pacing.Stages, lp.Pacing)
	assert.Equal(t, 3*time.Second, lp.Duration)
	assert.Contains(t, lp.String(), "3 stages for 3s")
	pacer, err := lp.Pacer()
	require.NoError(t, err)
	s := pacing.Schedule{P: pacer}
	perSecond := make([]int, 4)
	for {
		due, ok := s.Next()
		if !ok || due > lp.Duration {
			break
		}
		perSecond[min(3, int(due/time.Second))]++
	}
	assert.InDelta(t, 10, perSecond[0], 1)
	assert.InDelta(t, 100, perSecond[1], 1)
	assert.InDelta(t, 200, perSecond[2], 2) // 100 → 300 linearly: 200 on average
	assert.Zero(t, perSecond[3])

	for _, bad := range []string{
		"stages: []\nduration: 1s\n",
		"stages:\n  - {rate: 0, duration: 1s}\n",                   // a max-rate stage
		"stages:\n  - {rate: 5, duration: 1s}\nduration: 5s\n",     // not the sum
		"stages:\n  - {rate: 5, duration: 1s}\nrate: 5\n",          // a rate outside the stages
		"pacing: constant\nstages:\n  - {rate: 5, duration: 1s}\n", // stages need pacing stages
		"stages:\n  - {stages: [{rate: 5, duration: 1s}], duration: 1s}\n",
	} {
		_, err := pacing.ParseLoadProfile([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestOperatorNumber(t *testing.T) {
	t.Parallel()
	for _, op := range contract.Operators() {
		for h := range uint64(200) {
			n := operatorNumber(strings.ToUpper(op.Names[0]), mix64(h))
			require.True(t, contract.ValidMsisdn(n), n)
			assert.Contains(t, op.Prefixes, n[:4], "%s got %s", op.Names[0], n)
			assert.Equal(t, fmt.Sprintf("%08d", (mix64(h)>>8)%100_000_000), n[4:], "the 8 digits chosen by h")
		}
	}
	assert.Contains(t, contract.Operators()[0].Prefixes, operatorNumber("Unknown Operator", 7)[:4])
	assert.Contains(t, contract.Operators()[1].Prefixes, operatorNumber("Indosat Ooredoo", 7)[:4])
}

// TestPaymentsGoToTheProductsOperator: the destination number of a payment
// is a number of its product's operator.
func TestPaymentsGoToTheProductsOperator(t *testing.T) {
	t.Parallel()
	cat := &record.Catalog{Products: []record.Product{
		{ID: 1, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300, Operator: "XL"},
		{ID: 2, SubCategory: "prabayar", BasePrice: 6000, FinalPrice: 6300, Operator: "Tri"},
	}}
	ids, err := NewIDs("r", record.SingleShard)
	require.NoError(t, err)
	p, err := newPlanner(createScenario{}, &client{}, ids, record.SingleShard, []Account{{Key: "a", Funded: true}}, cat,
		Weights{record.KindBalance: 1}, DefaultOpMix, 0)
	require.NoError(t, err)
	want := map[int64][]string{1: contract.OperatorPrefixes("XL"), 2: contract.OperatorPrefixes("Tri")}
	for n := range uint64(50) {
		j := createScenario{}.jobs(p, n, nil)[0]
		var body api.CreatePaymentRequest
		require.NoError(t, json.Unmarshal(j.call.body, &body))
		assert.Contains(t, want[body.ProductId], body.Msisdn[:4], "product %d to %s", body.ProductId, body.Msisdn)
	}
}

func TestRestrictCatalog(t *testing.T) {
	t.Parallel()
	cat := &record.Catalog{Products: []record.Product{{ID: 1, SubCategory: "prabayar"}, {ID: 2, SubCategory: "paket-data"}, {ID: 3, SubCategory: "paket-data"}},
		SubCategories: []string{"prabayar", "paket-data"}}
	got, err := cat.Restrict(nil)
	require.NoError(t, err)
	assert.Same(t, cat, got)
	got, err = cat.Restrict([]string{"paket-data"})
	require.NoError(t, err)
	assert.Len(t, got.Products, 2)
	assert.Equal(t, []string{"paket-data"}, got.SubCategories)
	got, err = cat.Restrict([]string{"1", "3"})
	require.NoError(t, err)
	assert.Len(t, got.Products, 2)
	_, err = cat.Restrict([]string{"99"})
	assert.Error(t, err)
}

// TestReservedAccountsAreNeverSpent: the conformance profile's reserved
// accounts (funded_customer, ...) are not load customers.
func TestReservedAccountsAreNeverSpent(t *testing.T) {
	t.Parallel()
	p := profiles.Reference("http://127.0.0.1:1")
	require.NotNil(t, p.FundedCustomer)
	p.LoadCustomers = nil
	assert.Empty(t, partitionAccounts(p, record.SingleShard))
	p = profiles.Reference("http://127.0.0.1:1")
	for _, a := range partitionAccounts(p, record.SingleShard) {
		assert.True(t, strings.HasPrefix(a.Key, "load_customers["), a.Key)
	}
}

// TestBudgetReservesWhatTheAccountCanAfford: a payment reserves the highest
// price of a product the wallet can pay for, and its answer gives back what
// was not debited.
func TestBudgetReservesWhatTheAccountCanAfford(t *testing.T) {
	t.Parallel()
	byPrice := []record.Product{{ID: 1, BasePrice: 5000, FinalPrice: 6000}, {ID: 2, BasePrice: 10000, FinalPrice: 11000}}
	b := &budget{}
	b.balance.Store(12000)
	b.coins.Store(11000)
	for h := range uint64(20) {
		c := &budget{}
		c.balance.Store(12000)
		p, ok := c.reserve(record.KindBalance, byPrice, h)
		require.True(t, ok)
		assert.Equal(t, 12000-p.MaxPrice(), c.balance.Load())
	}
	p, ok := b.reserve(record.KindCoins, byPrice, 1) // 11,000 coins are Rp 5,500: only product 1 (Rp 6,000) is out of reach too
	assert.False(t, ok, "%+v", p)
	p, ok = b.reserve(record.KindBalance, byPrice, 1)
	require.True(t, ok)
	pay := &record.Payment{MaxBalance: p.MaxPrice(), Outcome: record.OutcomeCreated, Amount: &record.Amount{Total: p.FinalPrice, BalanceUsed: p.FinalPrice}}
	b.settle(pay)
	assert.Equal(t, 12000-p.FinalPrice, b.balance.Load(), "what was debited stays spent")
	b.balance.Store(20000)
	before := b.balance.Load()
	_, ok = b.reserve(record.KindBalance, byPrice, 0)
	require.True(t, ok)
	b.settle(&record.Payment{MaxBalance: before - b.balance.Load(), Outcome: record.OutcomeRefused})
	assert.Equal(t, before, b.balance.Load(), "a refusal gives everything back")
	_, ok = b.reserve(record.KindBalance, byPrice, 0)
	require.True(t, ok)
	b.settle(&record.Payment{MaxBalance: 6000, Outcome: record.OutcomeUncertain})
	assert.Equal(t, before-6000, b.balance.Load(), "an unanswered payment keeps its reservation")
}

// TestChunkedKeepsOrderAcrossChunks: values added past the first chunk's
// capacity and across several chunks come back all, in order.
func TestChunkedKeepsOrderAcrossChunks(t *testing.T) {
	t.Parallel()
	for _, first := range []int{0, 3, 2 * record.ChunkSize} {
		var c record.Chunked[int]
		c.Cur = make([]int, 0, first)
		n := 2*record.ChunkSize + 5
		for i := range n {
			c.Add(&i)
		}
		got := c.All()
		require.Len(t, got, n, "first chunk %d", first)
		for i, v := range got {
			require.Equal(t, i, v, "first chunk %d", first)
		}
	}
}

// TestTransportErrorsReadAsHTTPClientErrors: a request the transport could
// not send is reported as http.Client would report it ("Post: dial tcp ...")
// and a timeout as "timeout", whatever the method.
func TestTransportErrorsReadAsHTTPClientErrors(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Post", urlErrorOp("POST"))
	assert.Equal(t, "Get", urlErrorOp("GET"))
	assert.Equal(t, "Get", urlErrorOp(""))
	cl, err := newClient(profiles.Reference("http://127.0.0.1:1"), 0, time.Second) // nothing listens on port 1
	require.NoError(t, err)
	defer cl.close()
	for _, c := range []call{{op: record.OpCreate, method: "POST", url: cl.createURL, body: []byte(`{}`)}, {op: record.OpList, url: cl.base + "/client/v2/product/list"}} {
		resp := cl.do(context.Background(), c)
		require.Error(t, resp.err)
		assert.True(t, strings.HasPrefix(errorText(resp.err), urlErrorOp(c.method)+": dial tcp"), errorText(resp.err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	assert.Equal(t, "timeout", errorText(cl.do(ctx, call{op: record.OpList, url: cl.base + "/"}).err))
}
