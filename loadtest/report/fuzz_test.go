package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		th, err := ParseThreshold(expr)
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
		for op, build := range map[string]func(string, string) (Threshold, error){"<=": MaxThreshold, ">=": MinThreshold} {
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

func checkThreshold(t *testing.T, th Threshold) {
	t.Helper()
	unit, ok := metricUnits[th.Metric]
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
	again, err := ParseThreshold(th.Metric + th.Op + canon)
	require.NoError(t, err, "canonical form of %q", th.Expr)
	assert.Equal(t, th.Metric, again.Metric)
	assert.Equal(t, th.Op, again.Op)
	assert.InDelta(t, th.Value, again.Value, 1e-6*max(1, th.Value))
	_ = th.Evaluate(map[string]float64{th.Metric: 1}).String()
}
