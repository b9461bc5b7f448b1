package loadtest_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/loadtest"
	"github.com/partnercommerce/conformance/loadtest/report"
)

var (
	svgChart   = regexp.MustCompile(`(?s)<svg class="chart" id="([^"]+)".*?</svg>`)
	drawnLine  = regexp.MustCompile(`d="M[^"]*L[^"]*"`) // a path that goes somewhere: a move-to, then a line-to
	drawnPoint = regexp.MustCompile(`<circle class="point"`)
	seriesName = regexp.MustCompile(`(?s)<g class="series" data-series="([^"]*)">(.*?)</g>`)
)

// TestBurstTrafficIsDrawn: an idempotency run sends its requests in
// bursts (four waves a second fill one bucket of the charts in many), so
// a series is values between gaps; every chart of its page still draws
// each series with visible marks (points for the values alone, lines
// where they follow one another), not paths of move-to commands only.
func TestBurstTrafficIsDrawn(t *testing.T) {
	t.Parallel()
	rec, rep := run(t, startReference(t), loadtest.WithScenario(loadtest.ScenarioIdempotency), loadtest.WithWaveSize(8),
		loadtest.WithLoad(constant(32, time.Second)))
	require.True(t, rep.Passed, text(t, rep))
	var page bytes.Buffer
	require.NoError(t, report.HTML(rec, rep)(&page))
	charts := svgChart.FindAllStringSubmatch(page.String(), -1)
	require.Len(t, charts, 3)
	for _, c := range charts {
		id, svg := c[1], c[0]
		marks := len(drawnLine.FindAllString(svg, -1)) + len(drawnPoint.FindAllString(svg, -1))
		assert.Positive(t, marks, "%s draws nothing visible: %.600s", id, svg)
		for _, s := range seriesName.FindAllStringSubmatch(svg, -1) {
			if strings.Contains(s[2], `d=""`) && !strings.Contains(s[2], "<circle") {
				continue // a series without a value
			}
			assert.True(t, drawnLine.MatchString(s[2]) || drawnPoint.MatchString(s[2]), "%s: series %q draws nothing visible: %.400s", id, s[1], s[2])
		}
	}
	lat := svgChart.FindString(page.String()[strings.Index(page.String(), `id="chart-latency"`)-30:])
	assert.Positive(t, len(drawnPoint.FindAllString(lat, -1)), "the waves' latencies are points between gaps: %.600s", lat)
}
