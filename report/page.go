package report

import (
	"cmp"
	"html/template"
	"slices"

	"github.com/allot-sched/allot/metrics"
)

func sortBySlotHours(ps []metrics.ProjectSummary) {
	slices.SortStableFunc(ps, func(a, b metrics.ProjectSummary) int { return cmp.Compare(b.SlotHours, a.SlotHours) })
}

// pageTemplate is well-formed XML as well as HTML, so that tests can
// parse it; it links to nothing.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>Allot replay: {{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 2em auto; max-width: 1000px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #999; }
.muted { color: #666; }
.chart { max-width: 100%; height: auto; display: block; }
.chart .grid { stroke: #e6e6e6; stroke-width: 1; }
.chart .axis { stroke: #444; stroke-width: 1; }
.chart .tick { font-size: 11px; fill: #555; }
.chart .label { font-size: 12px; fill: #333; }
.chart .line { fill: none; stroke-width: 1.6; }
.chart .area { stroke: none; opacity: 0.9; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.35em; vertical-align: -0.1em; }
</style>
</head>
<body>
<h1>{{.Heading}}</h1>
<p class="muted">{{.Slots}} slots; {{len .Runs}} runs through Allot's scheduling core. Times are simulated.</p>
<p class="legend">{{range .Runs}}<span><span class="swatch" style="background: {{.Color}}"></span><b>{{.Name}}</b> <span class="muted">{{.Label}}</span></span>{{end}}</p>

<h2>Summary</h2>
<table>
<thead><tr><th>metric</th>{{range .Runs}}<th>{{.Name}}</th>{{end}}</tr>
{{if not .LongLabels}}<tr><th class="muted">configuration</th>{{range .Runs}}<th class="muted">{{.Label}}</th>{{end}}</tr>{{end}}</thead>
<tbody>
{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
<p class="muted">Wait is start − submit; JCT is end − submit; bounded slowdown is max(1, JCT ÷ max(run, 10 s)); percentiles are nearest-rank.{{if .Starved}} {{.Starved}}.{{end}} docs/metrics.md defines every number.</p>
{{if .Util}}
<h2>Utilisation over time</h2>
{{.Util}}
<h2>Queue length over time</h2>
{{.Queue}}
<h2>Wait: cumulative distribution</h2>
{{.Wait}}
<h2>Slots held per project</h2>
{{range .Projects}}<h3>{{.Run}} <span class="muted">{{.Label}}</span></h3>
{{.SVG}}
<p class="legend">{{range .Legend}}<span><span class="swatch" style="background: {{.Color}}"></span>{{.Name}}</span>{{end}}</p>
{{end}}{{end}}
{{if .Fairness}}
<h2>Share received against entitlement</h2>
<p class="muted">Slot-hours received of those entitled (the project's max-min fair share while it had work), and their ratio, for the projects that used the most.</p>
<table>
<thead><tr><th>project</th>{{range .Runs}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{range .Fairness}}<tr><td>{{.Label}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}
{{if or .Skipped .Notes}}
<h2>How the workload was read</h2>
<ul>
{{range .Skipped}}<li>skipped {{.Count}} {{if eq .Count 1}}record{{else}}records{{end}}: {{.Reason}} (first at line {{.FirstLine}})</li>
{{end}}{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
{{end}}
</body>
</html>
`))
