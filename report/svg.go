package report

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/allot-sched/allot/sim"
)

// Run colours: the Okabe–Ito palette, which stays distinct for readers
// with colour-blindness.
var runColors = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"}

// Project colours for stacked areas; the last is for "other".
var projectColors = []string{"#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#EDC948", "#B07AA1", "#FF9DA7", "#9C755F", "#BAB0AC"}

func runColor(i int) string { return runColors[i%len(runColors)] }

// tick is one labelled position on an axis.
type tick struct {
	at    float64
	label string
}

// plot maps data to a fixed-size SVG drawing with axes.
type plot struct {
	b              strings.Builder
	w, h           float64
	left, top      float64
	right, bottom  float64
	xmax, ymax     float64
	xticks, yticks []tick
	xlabel, ylabel string
}

func newPlot(xmax, ymax float64) *plot {
	return &plot{w: 720, h: 260, left: 56, top: 12, right: 16, bottom: 40,
		xmax: math.Max(xmax, 1e-9), ymax: math.Max(ymax, 1e-9)}
}

func (p *plot) px(x float64) float64 {
	return p.left + (p.w-p.left-p.right)*math.Min(math.Max(x/p.xmax, 0), 1)
}

func (p *plot) py(y float64) float64 {
	return p.h - p.bottom - (p.h-p.top-p.bottom)*math.Min(math.Max(y/p.ymax, 0), 1)
}

// svg closes the drawing: the axes go on top of the data.
func (p *plot) svg(title string) string {
	var out strings.Builder
	fmt.Fprintf(&out, `<svg class="chart" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s">`,
		p.w, p.h, p.w, p.h, html.EscapeString(title))
	for _, t := range p.yticks {
		y := p.py(t.at)
		fmt.Fprintf(&out, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, p.left, y, p.w-p.right, y)
		fmt.Fprintf(&out, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, p.left-6, y+4, html.EscapeString(t.label))
	}
	for _, t := range p.xticks {
		x := p.px(t.at)
		fmt.Fprintf(&out, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x, p.top, x, p.h-p.bottom)
		fmt.Fprintf(&out, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, p.h-p.bottom+16, html.EscapeString(t.label))
	}
	out.WriteString(p.b.String())
	fmt.Fprintf(&out, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, p.left, p.h-p.bottom, p.w-p.right, p.h-p.bottom)
	fmt.Fprintf(&out, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, p.left, p.top, p.left, p.h-p.bottom)
	fmt.Fprintf(&out, `<text class="label" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`,
		(p.left+p.w-p.right)/2, p.h-4, html.EscapeString(p.xlabel))
	fmt.Fprintf(&out, `<text class="label" transform="translate(12 %.1f) rotate(-90)" text-anchor="middle">%s</text>`,
		(p.top+p.h-p.bottom)/2, html.EscapeString(p.ylabel))
	out.WriteString(`</svg>`)
	return out.String()
}

// steps draws a step line: value ys[i] over [xs[i], xs[i+1]).
func (p *plot) steps(xs, ys []float64, color, title string) {
	if len(ys) == 0 {
		return
	}
	fmt.Fprintf(&p.b, `<polyline class="line" stroke="%s" points="`, color)
	for i, y := range ys {
		fmt.Fprintf(&p.b, "%.1f,%.1f %.1f,%.1f ", p.px(xs[i]), p.py(y), p.px(xs[i+1]), p.py(y))
	}
	fmt.Fprintf(&p.b, `"><title>%s</title></polyline>`, html.EscapeString(title))
}

// band fills the area between lower and upper step lines.
func (p *plot) band(xs, lower, upper []float64, color, title string) {
	if len(upper) == 0 {
		return
	}
	fmt.Fprintf(&p.b, `<polygon class="area" fill="%s" points="`, color)
	for i, y := range upper {
		fmt.Fprintf(&p.b, "%.1f,%.1f %.1f,%.1f ", p.px(xs[i]), p.py(y), p.px(xs[i+1]), p.py(y))
	}
	for i := len(lower) - 1; i >= 0; i-- {
		fmt.Fprintf(&p.b, "%.1f,%.1f %.1f,%.1f ", p.px(xs[i+1]), p.py(lower[i]), p.px(xs[i]), p.py(lower[i]))
	}
	fmt.Fprintf(&p.b, `"><title>%s</title></polygon>`, html.EscapeString(title))
}

// curve draws a line through points.
func (p *plot) curve(xs, ys []float64, color, title string) {
	fmt.Fprintf(&p.b, `<polyline class="line" stroke="%s" points="`, color)
	for i := range xs {
		fmt.Fprintf(&p.b, "%.1f,%.1f ", p.px(xs[i]), p.py(ys[i]))
	}
	fmt.Fprintf(&p.b, `"><title>%s</title></polyline>`, html.EscapeString(title))
}

// niceStep is the smallest of 1, 2, 5 × 10^k that splits span into at
// most n steps.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// niceMax rounds v up to a whole number of nice steps, so that the top
// of an axis has a label and the data some headroom.
func niceMax(v float64) float64 {
	step := niceStep(v, 5)
	return math.Ceil(v/step) * step
}

// linearTicks labels 0..max in nice steps.
func linearTicks(max float64, format func(float64) string) []tick {
	step := niceStep(max, 5)
	var out []tick
	for v := 0.0; v <= max*1.0001; v += step {
		out = append(out, tick{v, format(v)})
	}
	return out
}

// timeTicks labels a span of seconds in hours or days.
func timeTicks(span float64) ([]tick, string) {
	unit, name := 3600.0, "hours"
	if span > 4*86400 {
		unit, name = 86400, "days"
	}
	step := niceStep(span/unit, 8) * unit
	var out []tick
	for v := 0.0; v <= span*1.0001; v += step {
		out = append(out, tick{v, trim(v / unit)})
	}
	// A replay's time 0 is its workload's: a trace's first submission,
	// a scenario's start (an export's window start, --since).
	return out, "time since the replay's start (" + name + ")"
}

// logWait maps a wait in seconds onto the CDF's logarithmic axis, which
// keeps zero waits (log10(1 + 0) = 0) on the chart.
func logWait(w float64) float64 { return math.Log10(1 + w) }

// waitTicks labels the logarithmic wait axis with round durations.
func waitTicks(max float64) []tick {
	out := []tick{{0, "0"}}
	for _, s := range []float64{10, 60, 600, 3600, 36000, 86400, 864000, 8640000} {
		if s <= max*1.0001 {
			out = append(out, tick{logWait(s), sim.Duration(s)})
		}
	}
	return out
}
