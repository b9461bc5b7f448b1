package perf

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestBytesPerRequestIsTheGrowthOverTheExtraRequests(t *testing.T) {
	t.Parallel()
	f := MemoryFigures{
		Short: []GeneratorRun{{Sent: 25_000, PeakRSS: 30 << 20}, {Sent: 25_000, PeakRSS: 31 << 20}},
		Long:  []GeneratorRun{{Sent: 100_000, PeakRSS: 30<<20 + 75_000*40}, {Sent: 100_000, PeakRSS: 31<<20 + 75_000*20}},
	}
	assert.InDelta(t, 30, f.BytesPerRequest(), 1e-9, "the median of 40 and 20 B per request")
	assert.Zero(t, MemoryFigures{}.BytesPerRequest())
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
		Ours: MemoryFigures{Short: []GeneratorRun{{Sent: 1, PeakRSS: 1}}, Long: []GeneratorRun{{Sent: 2, PeakRSS: 1000}}}}.WriteRows(&buf)
	assert.Contains(t, buf.String(), "| 999 B |")
	assert.Contains(t, buf.String(), "| at most 50 B | no |")
	assert.Contains(t, buf.String(), "extrapolated from a 10m0s run | 43.5 MiB | slope 0.59 MiB per 10 min over 58 samples")
}
