package perf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// vegetaResults encodes results as vegeta attack writes them: hit i at
// began + i/rate + late(i), answered after lat.
func vegetaResults(t *testing.T, n int, rate float64, late func(i int) time.Duration, lat time.Duration) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	enc := vegeta.NewEncoder(&buf)
	began := time.Unix(1_700_000_000, 0)
	for i := range n {
		due := began.Add(time.Duration(float64(i) * float64(time.Second) / rate))
		require.NoError(t, enc.Encode(&vegeta.Result{Seq: uint64(i), Code: 200, Timestamp: due.Add(late(i)), Latency: lat}))
	}
	return &buf
}

func TestVegetaFiguresCorrectForLateSends(t *testing.T) {
	t.Parallel()
	const rate = 1000.0
	cases := []struct {
		name           string
		late           func(int) time.Duration
		wantLatePct    float64
		wantCorrected  time.Duration
		wantAchievedLo float64
	}{
		{"on time", func(int) time.Duration { return 0 }, 0, 2 * time.Millisecond, 999},
		// Every tenth hit 30 ms late: 10 % late, and the p99 from the
		// schedule is the latency plus the lateness.
		{"every tenth 30 ms late", func(i int) time.Duration {
			if i%10 == 5 {
				return 30 * time.Millisecond
			}
			return 0
		}, 10, 32 * time.Millisecond, 975}, // the last late hit, 995, sent at 1.025 s
		// The first hit late too: t0 is not taken from it.
		{"first hit late", func(i int) time.Duration {
			if i == 0 {
				return 20 * time.Millisecond
			}
			return 0
		}, 0.1, 2 * time.Millisecond, 999},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run, err := vegetaFigures(vegetaResults(t, 1000, rate, tc.late, 2*time.Millisecond), rate, time.Second, 50*time.Millisecond)
			require.NoError(t, err)
			assert.Equal(t, int64(1000), run.Sent)
			assert.InDelta(t, tc.wantLatePct, run.LatePct, 1e-9)
			assert.Equal(t, 2*time.Millisecond, run.P99Send)
			assert.Equal(t, tc.wantCorrected, run.P99Corrected)
			assert.GreaterOrEqual(t, run.Achieved, tc.wantAchievedLo)
			assert.LessOrEqual(t, run.Achieved, rate)
			assert.Equal(t, 50*time.Microsecond, run.CPUPerRequest())
		})
	}
}

func TestVegetaFiguresRateOverTheRealSendingTime(t *testing.T) {
	t.Parallel()
	// Sent at half the asked rate for 2 s of a 1 s run: 500 sends a second.
	res := vegetaResults(t, 1000, 1000, func(i int) time.Duration { return time.Duration(i) * time.Millisecond }, time.Millisecond)
	run, err := vegetaFigures(res, 1000, time.Second, 0)
	require.NoError(t, err)
	assert.InDelta(t, 500, run.Achieved, 1)
	assert.Greater(t, run.LatePct, 95.0)
}

func TestVegetaFiguresRefuseNoResults(t *testing.T) {
	t.Parallel()
	_, err := vegetaFigures(strings.NewReader(""), 1000, time.Second, 0)
	require.Error(t, err)
}

func TestParseReportReadsTheLoadTestersFigures(t *testing.T) {
	t.Parallel()
	b := []byte(`{"latency_corrected":{"p99":26000000},"latency_raw":{"p99":18000000},` +
		`"generator":{"sent":25000,"late":375,"achieved_rate":4990.5}}`)
	run, err := parseReport(b, 5000, 2500*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, GeneratorRun{Rate: 5000, Sent: 25000, Achieved: 4990.5, P99Send: 18 * time.Millisecond,
		P99Corrected: 26 * time.Millisecond, LatePct: 1.5, CPU: 2500 * time.Millisecond}, run)
	assert.Equal(t, 100*time.Microsecond, run.CPUPerRequest())
	_, err = parseReport([]byte(`{"generator":{"sent":0}}`), 5000, 0)
	require.Error(t, err, "a run that sent nothing")
}

func TestHighestCleanIsCleanInMostRounds(t *testing.T) {
	t.Parallel()
	clean := GeneratorRun{Sent: 1, P99Send: 10 * time.Millisecond}
	slow := GeneratorRun{Sent: 1, P99Send: 60 * time.Millisecond}
	late := GeneratorRun{Sent: 1, P99Send: 10 * time.Millisecond, LatePct: 6}
	f := GeneratorFigures{ByRate: map[float64][]GeneratorRun{
		2500: {clean, clean, clean},
		5000: {clean, slow, clean},
		7500: {clean, late, slow},
	}}
	assert.InDelta(t, 5000, f.HighestClean(), 0)
	assert.InDelta(t, 0, GeneratorFigures{ByRate: map[float64][]GeneratorRun{2500: {slow}}}.HighestClean(), 0)
	assert.False(t, GeneratorRun{}.Clean(), "a run that sent nothing is not clean")
}

func TestGeneratorRowsMarkTheGoals(t *testing.T) {
	t.Parallel()
	run := func(p99 time.Duration, late float64, achieved float64, cpu time.Duration) GeneratorRun {
		return GeneratorRun{Sent: 1000, P99Send: p99, P99Corrected: p99, LatePct: late, Achieved: achieved, CPU: cpu}
	}
	ours := GeneratorFigures{Name: "loadtest", ByRate: map[float64][]GeneratorRun{5000: {run(10*time.Millisecond, 0, 5000, 0)}},
		MaxRate: []GeneratorRun{run(5*time.Millisecond, 0, 9000, 100*time.Millisecond)}}
	veg := GeneratorFigures{Name: "vegeta", ByRate: map[float64][]GeneratorRun{5000: {run(12*time.Millisecond, 0, 5000, 0)}},
		MaxRate: []GeneratorRun{run(5*time.Millisecond, 0, 10000, 80*time.Millisecond)}}
	var b strings.Builder
	GeneratorResult{Reference: 5000, Workers: 64, Ours: ours, Vegeta: &veg}.WriteRows(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4)
	assert.True(t, strings.HasSuffix(lines[0], "| yes |"), lines[0]) // 5000/s both
	assert.True(t, strings.HasSuffix(lines[1], "| yes |"), lines[1]) // 10 ms <= 12 ms, none late
	assert.True(t, strings.HasSuffix(lines[2], "| no |"), lines[2])  // 100 µs > 80 µs
	assert.True(t, strings.HasSuffix(lines[3], "| no |"), lines[3])  // 9,000/s < 10,000/s
	assert.Contains(t, lines[2], "100.0 µs vs 80.0 µs")

	// The peak-memory rows, at 5,000 and 10,000/s: at most 1.5× vegeta's.
	withPeak := func(f GeneratorFigures, rate float64, peaks ...int64) {
		for _, p := range peaks {
			r := run(5*time.Millisecond, 0, rate, 0)
			r.PeakRSS = p << 20
			f.ByRate[rate] = append(f.ByRate[rate], r)
		}
	}
	withPeak(ours, 10000, 40, 28, 29)
	withPeak(veg, 10000, 20, 20, 30)
	ours.ByRate[5000][0].PeakRSS, veg.ByRate[5000][0].PeakRSS = 45<<20, 20<<20
	b.Reset()
	GeneratorResult{Reference: 5000, Workers: 64, Ours: ours, Vegeta: &veg}.WriteRows(&b)
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 6)
	assert.Contains(t, lines[2], "peak resident memory at 5000/s")
	assert.Contains(t, lines[2], "45.0 MiB vs 20.0 MiB (2.25×)")
	assert.True(t, strings.HasSuffix(lines[2], "| no |"), lines[2])
	assert.Contains(t, lines[3], "29.0 MiB vs 20.0 MiB (1.45×)") // medians
	assert.Contains(t, lines[3], "by round 40.0, 28.0, 29.0 vs 20.0, 20.0, 30.0")
	assert.True(t, strings.HasSuffix(lines[3], "| yes |"), lines[3])

	b.Reset()
	GeneratorResult{Reference: 5000, Workers: 64, Ours: ours}.WriteRows(&b)
	assert.Contains(t, b.String(), "vegeta CLI not installed")

	b.Reset()
	slow := GeneratorFigures{ByRate: map[float64][]GeneratorRun{5000: {run(80*time.Millisecond, 0, 5000, 0)}}}
	GeneratorResult{Reference: 5000, Workers: 64, Ours: slow, Vegeta: &slow}.WriteRows(&b)
	assert.Contains(t, b.String(), "| none vs none |")
	assert.Contains(t, strings.Split(b.String(), "\n")[0], "| no |", "no clean rate is no goal met")
}

func TestFindVegetaLooksWhereGoInstallPutsIt(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	t.Setenv("GOBIN", bin)
	t.Setenv("GOPATH", t.TempDir())
	assert.Empty(t, FindVegeta(), "not installed anywhere")

	require.NoError(t, os.WriteFile(filepath.Join(bin, "vegeta"), []byte("#!/bin/sh\n"), 0o755))
	assert.Equal(t, filepath.Join(bin, "vegeta"), FindVegeta())

	t.Setenv("GOBIN", "")
	gopath := t.TempDir()
	t.Setenv("GOPATH", gopath)
	require.NoError(t, os.MkdirAll(filepath.Join(gopath, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gopath, "bin", "vegeta"), []byte("#!/bin/sh\n"), 0o644))
	assert.Empty(t, FindVegeta(), "a file that is not executable is not the CLI")
	require.NoError(t, os.Chmod(filepath.Join(gopath, "bin", "vegeta"), 0o755))
	assert.Equal(t, filepath.Join(gopath, "bin", "vegeta"), FindVegeta())
}
