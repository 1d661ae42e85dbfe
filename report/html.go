package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/sim"
)

// topProjects is how many projects get their own colour in a stacked
// chart and a row in the fairness table; the rest are summed as "other".
const topProjects = 8

// WriteHTML writes a self-contained page: the comparison table, and
// charts of utilisation, queue length, wait CDF and slots held per
// project, drawn as inline SVG. Runs recorded without a series get the
// table only.
func WriteHTML(w io.Writer, c *Comparison) error {
	page := htmlPage{Title: filepath.Base(c.Workload), Heading: "Replay of " + c.Workload, Slots: c.Slots,
		Skipped: c.Skipped, Notes: c.Notes}
	if c.Title != "" {
		page.Title, page.Heading = "What if: "+c.Title, "What if: "+c.Title
	}
	labels := c.Labels()
	page.LongLabels = slices.ContainsFunc(labels, func(l string) bool { return len(l) > maxLabelColumn })
	for i, r := range c.Runs {
		page.Runs = append(page.Runs, htmlRun{Name: r.Name, Label: labels[i], Color: runColor(i)})
	}
	if after, ok := starveAfter(c); ok {
		note := starveNote(after)
		page.Starved = strings.ToUpper(note[:1]) + note[1:]
	}
	for _, rw := range rows(c) {
		hr := htmlRow{Label: rw.label}
		for _, r := range c.Runs {
			hr.Values = append(hr.Values, rw.value(&r.Result.Metrics))
		}
		page.Rows = append(page.Rows, hr)
	}
	if hasSeries(c) {
		page.Util = template.HTML(utilChart(c))
		page.Queue = template.HTML(queueChart(c))
		page.Wait = template.HTML(waitChart(c))
		top := topNames(c)
		for i := range c.Runs {
			svg, legend := projectChart(c, i, top)
			page.Projects = append(page.Projects, htmlStack{Run: c.Runs[i].Name, Label: labels[i], SVG: template.HTML(svg), Legend: legend})
		}
	}
	page.Fairness = fairnessRows(c)
	return pageTemplate.Execute(w, page)
}

type htmlPage struct {
	Title, Heading string
	// LongLabels leaves the configurations out of the table's head: the
	// legend above it has them (maxLabelColumn).
	LongLabels  bool
	Slots       int
	Runs        []htmlRun
	Rows        []htmlRow
	Util, Queue template.HTML
	Wait        template.HTML
	Projects    []htmlStack
	Fairness    []htmlRow
	Skipped     []sim.Skip
	Notes       []string
	// Starved defines the starvation rows, when the runs counted it.
	Starved string
}

// htmlRun is a run in the legend (Label its configuration, Comparison's
// Labels), or a project in a stacked chart's.
type htmlRun struct{ Name, Label, Color string }

type htmlRow struct {
	Label  string
	Values []string
}

type htmlStack struct {
	Run    string
	Label  string
	SVG    template.HTML
	Legend []htmlRun
}

// runTitle names a run with its configuration, as a chart's line is
// titled: easy (backfill/easy).
func runTitle(name, label string) string { return name + " (" + label + ")" }

func hasSeries(c *Comparison) bool {
	for _, r := range c.Runs {
		if r.Result.Series == nil {
			return false
		}
	}
	return len(c.Runs) > 0
}

// edges returns the time edges of a run's steps, relative to the series
// start; the last step ends with the run.
func edges(r *sim.Result) []float64 {
	s := r.Series
	n := len(s.Utilization)
	xs := make([]float64, n+1)
	for i := range xs {
		xs[i] = float64(int64(i) * s.Step)
	}
	if n > 0 {
		xs[n] = math.Min(xs[n], float64(r.End-s.Start))
	}
	return xs
}

func span(c *Comparison) float64 {
	m := 0.0
	for _, r := range c.Runs {
		xs := edges(r.Result)
		m = math.Max(m, xs[len(xs)-1])
	}
	return m
}

func timePlot(c *Comparison, ymax float64) *plot {
	p := newPlot(span(c), ymax)
	p.xticks, p.xlabel = timeTicks(p.xmax)
	return p
}

func utilChart(c *Comparison) string {
	p := timePlot(c, 1)
	p.yticks = linearTicks(1, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })
	p.ylabel = "slots held"
	labels := c.Labels()
	for i, r := range c.Runs {
		p.steps(edges(r.Result), r.Result.Series.Utilization, runColor(i), runTitle(r.Name, labels[i]))
	}
	return p.svg("utilisation over time")
}

func queueChart(c *Comparison) string {
	ymax := 1.0
	for _, r := range c.Runs {
		for _, q := range r.Result.Series.Queue {
			ymax = math.Max(ymax, q)
		}
	}
	ymax = niceMax(ymax)
	p := timePlot(c, ymax)
	p.yticks = linearTicks(ymax, trim)
	// The series holds each bucket's time-average, so a short peak (the
	// table's queue max) is flattened: the labels say so.
	p.ylabel = "jobs waiting (mean per bucket)"
	labels := c.Labels()
	for i, r := range c.Runs {
		p.steps(edges(r.Result), r.Result.Series.Queue, runColor(i), runTitle(r.Name, labels[i]))
	}
	return p.svg("queue length over time (mean per bucket; the table's max is the peak)")
}

// waitChart plots each run's wait CDF from its quantiles on a logarithmic
// time axis.
func waitChart(c *Comparison) string {
	wmax := 60.0
	for _, r := range c.Runs {
		if q := r.Result.Series.WaitQuantiles; len(q) > 0 {
			wmax = math.Max(wmax, q[len(q)-1])
		}
	}
	p := newPlot(logWait(wmax), 1)
	p.xticks = waitTicks(wmax)
	p.yticks = linearTicks(1, func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) })
	p.xlabel, p.ylabel = "wait (logarithmic)", "jobs waiting at most that long"
	labels := c.Labels()
	for i, r := range c.Runs {
		q := r.Result.Series.WaitQuantiles
		if len(q) < 2 {
			continue
		}
		xs, ys := make([]float64, len(q)), make([]float64, len(q))
		for k, w := range q {
			xs[k], ys[k] = logWait(w), float64(k)/float64(len(q)-1)
		}
		p.curve(xs, ys, runColor(i), runTitle(r.Name, labels[i]))
	}
	return p.svg("CDF of wait")
}

// projectChart stacks the slots held by the biggest projects (the same
// ones, in the same colours, for every run), the rest summed as other.
func projectChart(c *Comparison, run int, top []string) (string, []htmlRun) {
	r := c.Runs[run].Result
	xs := edges(r)
	n := len(r.Series.Utilization)
	p := timePlot(c, float64(c.Slots))
	p.yticks = linearTicks(float64(c.Slots), trim)
	p.ylabel = "slots held"
	byName := map[string][]float64{}
	other := make([]float64, n)
	for _, ps := range r.Series.Projects {
		if slices.Contains(top, ps.Name) {
			byName[ps.Name] = ps.Slots
			continue
		}
		for i := range other {
			other[i] += ps.Slots[i]
		}
	}
	lower := make([]float64, n)
	var legend []htmlRun
	for k, name := range top {
		color := projectColors[k%(len(projectColors)-1)]
		if v, ok := byName[name]; ok {
			lower = stack(p, xs, lower, v, color, name)
		}
		legend = append(legend, htmlRun{Name: name, Color: color})
	}
	if rest := len(r.Series.Projects) - len(byName); rest > 0 {
		color := projectColors[len(projectColors)-1]
		stack(p, xs, lower, other, color, fmt.Sprintf("%d other projects", rest))
		legend = append(legend, htmlRun{Name: fmt.Sprintf("%d others", rest), Color: color})
	}
	return p.svg("slots held per project, " + runTitle(c.Runs[run].Name, c.Labels()[run])), legend
}

// topNames are the projects that held the most slot-hours over all runs,
// biggest first, at most topProjects of them.
func topNames(c *Comparison) []string {
	total := map[string]float64{}
	var order []string
	for _, r := range c.Runs {
		for _, p := range r.Result.Metrics.Projects {
			if _, ok := total[p.Name]; !ok {
				order = append(order, p.Name)
			}
			total[p.Name] += p.SlotHours
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(total[b], total[a]) })
	return order[:min(len(order), topProjects)]
}

// stack draws one band on top of lower and returns the new top.
func stack(p *plot, xs, lower, values []float64, color, title string) []float64 {
	upper := make([]float64, len(lower))
	for i := range upper {
		upper[i] = lower[i] + values[i]
	}
	p.band(xs, lower, upper, color, title)
	return upper
}

// fairnessRows lists the projects that received the most in the first
// run, with each run's share ratio (received ÷ entitled).
func fairnessRows(c *Comparison) []htmlRow {
	if len(c.Runs) == 0 {
		return nil
	}
	ratio := make([]map[string]metrics.ProjectSummary, len(c.Runs))
	for i, r := range c.Runs {
		ratio[i] = map[string]metrics.ProjectSummary{}
		for _, p := range r.Result.Metrics.Projects {
			ratio[i][p.Name] = p
		}
	}
	top := append([]metrics.ProjectSummary(nil), c.Runs[0].Result.Metrics.Projects...)
	sortBySlotHours(top)
	var out []htmlRow
	for k, p := range top {
		if k >= 2*topProjects {
			break
		}
		row := htmlRow{Label: fmt.Sprintf("%s (%d jobs)", p.Name, p.Jobs)}
		for i := range c.Runs {
			q := ratio[i][p.Name]
			row.Values = append(row.Values, fmt.Sprintf("%s of %s slot-h (%.2f)",
				trim(math.Round(q.SlotHours)), trim(math.Round(q.EntitledSlotHours)), q.ShareRatio))
		}
		out = append(out, row)
	}
	return out
}
