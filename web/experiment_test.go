package web

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

// TestExperimentSearcherTable: an experiment's page gives the searcher's
// table, as allot experiment show prints it: each trial's decision with
// its note, best and best step, bracket and rungs, and each rung's
// summary (trial 2026-11-29i I8).
func TestExperimentSearcherTable(t *testing.T) {
	p := openPage(t, newFixture(), "#/jobs/1", wide)
	p.waitText("#searcher-head", "Searcher asha, metric loss (smaller is better), 5 reports.")
	for _, c := range []struct{ trial, want string }{
		{"0", "continue: promoted at rungs 0-1 as the first to arrive"},
		{"1", "stopped: at rung 1, not in the top 1/3"},
	} {
		row := p.waitText(`#trials tr[data-trial="`+c.trial+`"]`, c.want)
		if c.trial == "1" && !strings.Contains(row, "1.3") {
			t.Errorf("trial 1 row %q, want its best 1.3", row)
		}
	}
	rungs := p.waitText("#rungs", "rung 0 (step 1)")
	for _, want := range []string{"rung 0 (step 1): 2 joined, 2 promoted, 0 stopped",
		"rung 1 (step 3): 2 joined, 1 promoted, 1 stopped (trial 1)", "rung 2 (step 9): 0 joined, 0 done"} {
		if !strings.Contains(rungs, want) {
			t.Errorf("rungs %q, want %q", rungs, want)
		}
	}
	if hidden := evalJS[bool](p, `document.getElementById('searcher-unjudged').textContent !== ''`); hidden {
		t.Errorf("a search whose trials report its metric says they do not")
	}
}

// TestExperimentOtherMetricName: a search whose trials report val_loss
// while its searcher reads loss says so in the chart's place and above
// the searcher's table, and each trial's decision carries the master's
// note (trial 2026-11-29i I16).
func TestExperimentOtherMetricName(t *testing.T) {
	f := newFixture()
	m := api.JobMetrics{JobID: 1, Metric: "loss", SmallerIsBetter: true, Searcher: "asha", Rungs: [][]int64{{1, 3}},
		ReportedMetrics: []string{"val_loss"},
		Points:          []api.MetricPoint{{Task: 0, Attempt: 1, Step: 1, Time: at(0), Metrics: map[string]float64{"val_loss": 0.5}}},
		Trials: []api.TrialMetrics{{Task: 0, State: "completed", Reports: 1, Bracket: new(0), Rung: new(0), Decision: "done",
			DecisionNote: "never reported loss; it reported val_loss"}}}
	f.metrics = map[int64]api.JobMetrics{1: m}
	p := openPage(t, f, "#/jobs/1", wide)
	want := "1 reports, none of metric loss; trials report val_loss, so the searcher judged no trial"
	p.waitText("#searcher-unjudged", want)
	p.waitText("#metric-caption", want)
	p.waitText(`#trials tr[data-trial="0"]`, "done: never reported loss; it reported val_loss")
	if n := evalJS[int](p, `document.querySelectorAll('#metric-chart svg').length`); n != 0 {
		t.Errorf("%d charts drawn without a report of the metric", n)
	}
}

// TestExperimentSearcherTableFitsNarrowScreen: the searcher's table and
// rung lines scroll in their own boxes on a narrow screen, as the other
// tables do, once they are drawn (TestViewsFitNarrowScreen may look
// before the metrics come).
func TestExperimentSearcherTableFitsNarrowScreen(t *testing.T) {
	p := openPage(t, newFixture(), "#/jobs/1", narrow)
	p.waitText("#rungs", "rung 2 (step 9)")
	if sizes := evalJS[[]int](p, `[document.documentElement.scrollWidth, window.innerWidth]`); sizes[0] > sizes[1] {
		t.Errorf("the experiment's page is %d px wide on a %d px screen", sizes[0], sizes[1])
	}
}
