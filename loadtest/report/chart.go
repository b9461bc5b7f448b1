package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// series is one line of a chart: a value per time bucket (NaN: no value).
type series struct {
	Name  string
	Color string
	Dash  bool
	Y     []float64
}

// chart is a line chart over the time buckets of a run, drawn as inline
// SVG on the server: the page needs no script to show it.
type chart struct {
	ID     string
	Title  string
	YUnit  string
	Bucket float64 // seconds per bucket
	Lines  []series
	// Marks are spans of time shaded behind the lines: the run's faults.
	Marks []mark
}

// mark is a span of a chart's time, in seconds from its start, with a
// short label drawn on the chart and a longer title shown on hover.
type mark struct {
	From, To     float64
	Label, Title string
}

// palette colours the lines of a chart (colour-blind friendly).
var palette = []string{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// The chart's size and margins, in SVG units.
const (
	chartW, chartH                                       = 1000.0, 280.0
	chartLeft, chartRight, chartTop, chartBottom         = 64.0, 16.0, 12.0, 36.0
	plotW, plotH                                 float64 = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
)

// chartScale places a chart's buckets and values in the plot area.
type chartScale struct {
	n      int     // buckets of the longest line
	ymax   float64 // the top of the y axis
	bucket float64 // seconds per bucket
}

func (c chart) scale() chartScale {
	sc := chartScale{bucket: c.Bucket}
	for _, s := range c.Lines {
		sc.n = max(sc.n, len(s.Y))
		for _, v := range s.Y {
			if !math.IsNaN(v) {
				sc.ymax = max(sc.ymax, v)
			}
		}
	}
	sc.ymax = niceCeil(sc.ymax)
	return sc
}

// x is the abscissa of bucket i.
func (sc chartScale) x(i int) float64 {
	if sc.n <= 1 {
		return chartLeft
	}
	return chartLeft + plotW*float64(i)/float64(sc.n-1)
}

// y is the ordinate of value v.
func (sc chartScale) y(v float64) float64 { return chartTop + plotH - plotH*v/sc.ymax }

// at is the abscissa of secs from the start, within the plot area.
func (sc chartScale) at(secs float64) float64 {
	if sc.n <= 1 || sc.bucket <= 0 {
		return chartLeft
	}
	return min(max(chartLeft+plotW*(secs/sc.bucket)/float64(sc.n-1), chartLeft), chartW-chartRight)
}

// SVG renders the chart.
func (c chart) SVG() template.HTML {
	sc := c.scale()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="%s" role="img" aria-label="%s" viewBox="0 0 %g %g" width="100%%" preserveAspectRatio="xMidYMid meet">`,
		template.HTMLEscapeString(c.ID), template.HTMLEscapeString(c.Title), chartW, chartH)
	c.writeAxes(&b, sc)
	c.writeMarks(&b, sc)
	c.writeLines(&b, sc)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) //nolint:gosec // built from escaped names and numbers only
}

// writeAxes writes the axes, the grid and their labels.
func (c chart) writeAxes(b *strings.Builder, sc chartScale) {
	for i := 0; i <= 4; i++ {
		v := sc.ymax * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#d0d7de" stroke-width="1"/>`, chartLeft, chartW-chartRight, sc.y(v), sc.y(v))
		fmt.Fprintf(b, `<text x="%g" y="%.1f" text-anchor="end" font-size="12" fill="#57606a">%s</text>`, chartLeft-6, sc.y(v)+4, trimFloat(v))
	}
	fmt.Fprintf(b, `<text x="12" y="%g" font-size="12" fill="#57606a" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`,
		chartTop+plotH/2, chartTop+plotH/2, template.HTMLEscapeString(c.YUnit))
	ticks := min(sc.n, 10)
	for i := 0; i < ticks; i++ {
		idx := 0
		if ticks > 1 {
			idx = int(math.Round(float64(i) * float64(sc.n-1) / float64(ticks-1)))
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%g" text-anchor="middle" font-size="12" fill="#57606a">%ss</text>`,
			sc.x(idx), chartH-chartBottom+18, trimFloat(float64(idx)*c.Bucket))
	}
	fmt.Fprintf(b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#57606a"/>`, chartLeft, chartW-chartRight, chartTop+plotH, chartTop+plotH)
}

// writeMarks writes the marks, behind the lines: a shaded span (at least
// 3 px wide) per fault, labelled at the top.
func (c chart) writeMarks(b *strings.Builder, sc chartScale) {
	for _, m := range c.Marks {
		x0, x1 := sc.at(m.From), sc.at(m.To)
		fmt.Fprintf(b, `<g class="fault"><title>%s</title><rect x="%.1f" y="%g" width="%.1f" height="%g" fill="#cf222e" fill-opacity="0.14"/>`+
			`<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#cf222e" stroke-width="1.5" stroke-dasharray="3 3"/>`+
			`<text x="%.1f" y="%g" font-size="11" fill="#cf222e">%s</text></g>`,
			template.HTMLEscapeString(m.Title), x0, chartTop, max(x1-x0, 3), plotH, x0, x0, chartTop, chartTop+plotH, x0+3, chartTop+10, template.HTMLEscapeString(m.Label))
	}
}

// writeLines writes the lines: a path per run of consecutive values, and
// a point for a value alone between gaps (burst traffic: an idempotency
// wave a second fills one bucket in ten), which a path of one move-to
// would not draw.
func (c chart) writeLines(b *strings.Builder, sc chartScale) {
	for _, s := range c.Lines {
		dash := ""
		if s.Dash {
			dash = ` stroke-dasharray="6 4"`
		}
		var d, points strings.Builder
		for i, v := range s.Y {
			if math.IsNaN(v) {
				continue
			}
			before, after := i > 0 && !math.IsNaN(s.Y[i-1]), i+1 < len(s.Y) && !math.IsNaN(s.Y[i+1])
			switch {
			case !before && !after:
				fmt.Fprintf(&points, `<circle class="point" cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, sc.x(i), sc.y(v), s.Color)
			case !before:
				fmt.Fprintf(&d, "M%.1f %.1f ", sc.x(i), sc.y(v))
			default:
				fmt.Fprintf(&d, "L%.1f %.1f ", sc.x(i), sc.y(v))
			}
		}
		name := template.HTMLEscapeString(s.Name)
		fmt.Fprintf(b, `<g class="series" data-series="%s"><title>%s</title><path class="line" d="%s" fill="none" stroke="%s" stroke-width="2"%s/>%s</g>`,
			name, name, strings.TrimSpace(d.String()), s.Color, dash, points.String())
	}
}

// Legend lists the lines with their colour and dash.
func (c chart) Legend() []series { return c.Lines }
