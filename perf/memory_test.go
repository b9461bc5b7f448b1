package perf

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBytesPerRequestIsTheGrowthOverTheExtraRequests: the growth is read
// from the resident memory at the end of each run, never from the peaks,
// which here are the warm-up's (the same 90 MiB in every run).
func TestBytesPerRequestIsTheGrowthOverTheExtraRequests(t *testing.T) {
	t.Parallel()
	f := MemoryFigures{
		Short: []GeneratorRun{{Sent: 25_000, EndRSS: 30 << 20, PeakRSS: 90 << 20}, {Sent: 25_000, EndRSS: 31 << 20, PeakRSS: 90 << 20}},
		Long: []GeneratorRun{{Sent: 100_000, EndRSS: 30<<20 + 75_000*40, PeakRSS: 90 << 20},
			{Sent: 100_000, EndRSS: 31<<20 + 75_000*20, PeakRSS: 90 << 20}},
	}
	assert.InDelta(t, 30, f.BytesPerRequest(), 1e-9, "the median of 40 and 20 B per request")
	assert.Zero(t, MemoryFigures{}.BytesPerRequest())
}

// TestRSSAtTheEndIsTheMedianOfTheLastSamples: the warm-up's spike and the
// report written after the attack are left out.
func TestRSSAtTheEndIsTheMedianOfTheLastSamples(t *testing.T) {
	t.Parallel()
	u := usage{rss: []RSSSample{
		{time.Second, 90 << 20}, // warm-up
		{3500 * time.Millisecond, 41 << 20}, {4 * time.Second, 40 << 20}, {4500 * time.Millisecond, 99 << 20},
		{5 * time.Second, 120 << 20}, // the report, after the attack
	}}
	assert.Equal(t, int64(41<<20), u.rssAtEnd(5*time.Second))
	assert.Zero(t, usage{}.rssAtEnd(5*time.Second))
}

// TestASoakThatFellBehindGivesNoFigure: the slope of a run that fell behind
// measures what piled up in flight; the row says why instead of a figure.
func TestASoakThatFellBehindGivesNoFigure(t *testing.T) {
	t.Parallel()
	s := SoakResult{Rate: 5000, Duration: 3 * time.Minute, PeakRSS: 900 << 20,
		Samples: []RSSSample{{time.Minute, 300 << 20}, {2 * time.Minute, 900 << 20}}}
	report := `{"generator":{"sent":800000,"achieved_rate":4400,"limited":true,"behind_from":12000000000,"behind_until":180000000000,` +
		`"reasons":["all 10000 workers were busy 5 times (--max-workers)"]}}`
	require.NoError(t, s.readReport([]byte(report)))
	var buf bytes.Buffer
	s.WriteRow(&buf)
	assert.Contains(t, buf.String(), "| not valid |")
	assert.Contains(t, buf.String(), "| no: the run fell behind its schedule (from 12s to 3m0s): all 10000 workers were busy 5 times")

	told := SoakResult{}
	require.NoError(t, told.readReport([]byte(`{"generator":{"limited":true,"fell_behind":"FELL BEHIND its schedule from 12 s to 3m0s: …"}}`)))
	assert.Equal(t, "FELL BEHIND its schedule from 12 s to 3m0s: …", told.FellBehind, "the load tester's own words")

	kept := SoakResult{}
	require.NoError(t, kept.readReport([]byte(`{"generator":{"sent":900000,"achieved_rate":5000,"limited":false}}`)))
	assert.Empty(t, kept.FellBehind)
}

func TestSoakSlopeLeavesOutTheSettlingAndExtrapolates(t *testing.T) {
	t.Parallel()
	s := SoakResult{Rate: 5000, Duration: 10 * time.Minute, PeakRSS: 41 << 20}
	for at := time.Duration(0); at <= 10*time.Minute; at += 10 * time.Second {
		rss := int64(40<<20) + int64(at.Seconds()*1024) // 1 KiB a second
		if at < soakSettle {
			rss = 200 << 20 // a start-up spike the fit must not see
		}
		s.Samples = append(s.Samples, RSSSample{At: at, RSS: rss})
	}
	a, b := s.Slope()
	assert.InDelta(t, 40<<20, a, 1)
	assert.InDelta(t, 1024, b, 1e-6)
	assert.InDelta(t, 40<<20+3600*1024, s.AtOneHour(), 1)

	flat := SoakResult{PeakRSS: 50 << 20, Samples: []RSSSample{{time.Minute, 30 << 20}, {2 * time.Minute, 30 << 20}}}
	assert.InDelta(t, 50<<20, flat.AtOneHour(), 0, "never below the peak the run reached")

	var buf bytes.Buffer
	MemoryResult{Rate: 5000, Short: 5 * time.Second, Long: 20 * time.Second, Soak: &s,
		Ours: MemoryFigures{Short: []GeneratorRun{{Sent: 25_000, EndRSS: 1}}, Long: []GeneratorRun{{Sent: 100_000, EndRSS: 75_000 * 999}}}}.WriteRows(&buf)
	assert.Contains(t, buf.String(), "| 999 B |")
	assert.Contains(t, buf.String(), "| at most 50 B | no |")

	assert.Contains(t, buf.String(), "extrapolated from a 10m0s run | 43.5 MiB | slope 0.59 MiB per 10 min over 58 samples")

	buf.Reset()
	MemoryResult{Rate: 5000, Short: 5 * time.Second, Long: 20 * time.Second,
		Ours: MemoryFigures{Short: []GeneratorRun{{Sent: 22_000}}, Long: []GeneratorRun{{Sent: 100_000, LatePct: 12}}}}.WriteRows(&buf)
	assert.Contains(t, buf.String(), "| at most 50 B | no: 2 of the load tester's runs fell behind")
}
