package report

import (
	"testing"
	"time"

	"github.com/partnercommerce/conformance/loadtest/record"
	"github.com/partnercommerce/conformance/loadtest/record/recordtest"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseThreshold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Threshold
		err  bool
	}{
		{in: "p99<=50ms", want: Threshold{Metric: "p99", Op: "<=", Value: 50}},
		{in: "p99<50ms", want: Threshold{Metric: "p99", Op: "<=", Value: 50}},
		{in: "raw_p50 <= 1.5s", want: Threshold{Metric: "raw_p50", Op: "<=", Value: 1500}},
		{in: "success>=99.9", want: Threshold{Metric: "success", Op: ">=", Value: 99.9}},
		{in: "success>99.9%", want: Threshold{Metric: "success", Op: ">=", Value: 99.9}},
		{in: "duplicate_debits<=0", want: Threshold{Metric: "duplicate_debits", Op: "<=", Value: 0}},
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
			got, err := ParseThreshold(tc.in)
			if tc.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			tc.want.Expr = tc.in
			assert.Equal(t, tc.want, got)
		})
	}
	th, err := MaxThreshold("p99", "50ms")
	require.NoError(t, err)
	assert.True(t, th.Evaluate(map[string]float64{"p99": 50}).Passed)
	assert.False(t, th.Evaluate(map[string]float64{"p99": 50.1}).Passed)
	th, err = MinThreshold("success", "99.9")
	require.NoError(t, err)
	assert.True(t, th.Evaluate(map[string]float64{"success": 100}).Passed)
	assert.False(t, th.Evaluate(map[string]float64{"success": 99.8}).Passed)
}

// TestThresholdOnUnmeasuredMetricFails: a threshold on a metric the run did
// not measure (duplicate debits without reconciliation) fails as "not
// measured" instead of passing on a zero.
func TestThresholdOnUnmeasuredMetricFails(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"duplicate_debits<=0", "invariant_violations<=0", "success>=0"} {
		th, err := ParseThreshold(expr)
		require.NoError(t, err)
		res := th.Evaluate(map[string]float64{})
		assert.False(t, res.Passed, expr)
		assert.True(t, res.NotMeasured, expr)
		assert.Contains(t, res.String(), "not measured", expr)
	}

	now := time.Now()
	rec := recordtest.Record(t, &record.Run{Meta: record.Meta{Settings: record.Settings{RunID: "r", Shard: record.SingleShard}}}, // no Reconciliation
		record.HitResult{Result: record.Result{Result: vegeta.Result{Timestamp: now, Code: 200}, Scheduled: now, Op: record.OpCreate, Expected: true, Allowed: true}})
	dup, err := MaxThreshold("duplicate_debits", "0")
	require.NoError(t, err)
	p99, err := MaxThreshold("p99", "1s")
	require.NoError(t, err)
	rep := BuildReport(rec, nil, []Threshold{dup, p99})
	require.Len(t, rep.Thresholds, 4) // and the defaults uncertain_pct<=1% and server_errors<=1%
	assert.Equal(t, "uncertain_pct", rep.Thresholds[2].Metric)
	assert.True(t, rep.Thresholds[2].Passed)
	assert.Equal(t, "server_errors", rep.Thresholds[3].Metric)
	assert.True(t, rep.Thresholds[3].Passed)
	assert.False(t, rep.Thresholds[0].Passed)
	assert.True(t, rep.Thresholds[1].Passed)
	assert.False(t, rep.Passed)
	require.Len(t, rep.Failures, 1)
	assert.Contains(t, rep.Failures[0], "duplicate_debits<=0")
	assert.Contains(t, rep.Failures[0], "not measured")
}

// TestDefaultThresholdsHoldServerErrors: by default a run fails when more
// than 1% of its requests got a server error (a 5xx of the API), as when
// more than 1% got no answer; a threshold on uncertain_pct above that
// raises the server errors' default as far (the requests without an
// answer count among them), and one on server_errors replaces it.
func TestDefaultThresholdsHoldServerErrors(t *testing.T) {
	t.Parallel()
	now := time.Now()
	results := make([]record.HitResult, 0, 100)
	for i := range 100 {
		code := uint16(200)
		if i < 5 {
			code = 500
		}
		results = append(results, record.HitResult{Result: record.Result{Result: vegeta.Result{Timestamp: now, Code: code},
			Scheduled: now, Op: record.OpStatus, Expected: code == 200, Allowed: code == 200}})
	}
	rec := recordtest.Record(t, &record.Run{Meta: record.Meta{Settings: record.Settings{RunID: "r", Shard: record.SingleShard}}}, results...)
	rep := BuildReport(rec, nil, nil)
	require.False(t, rep.Passed, "5%% server errors: %v", rep.Failures)
	assert.Contains(t, rep.Failures, "threshold server_errors<=1%: server_errors measured 5.000% in scenario  (5xx answers and requests the server did not answer)")

	uncertain, err := MaxThreshold("uncertain_pct", "10")
	require.NoError(t, err)
	assert.True(t, BuildReport(rec, nil, []Threshold{uncertain}).Passed, "server errors within the uncertain requests allowed")
	serverErrors, err := MaxThreshold("server_errors", "6")
	require.NoError(t, err)
	assert.True(t, BuildReport(rec, nil, []Threshold{serverErrors}).Passed)
}
