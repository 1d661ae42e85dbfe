package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/allot-sched/allot/api"
)

func TestExperimentShow(t *testing.T) {
	f := newFakeMaster(t)
	runCLICases(t, f, []cliCase{
		{name: "trials with the searcher's standing", args: []string{"experiment", "show", "3"}, out: `Experiment 3  searcher asha  metric loss (smaller is better)  reports 4
Best: trial 0, loss 0.4 at step 9

TRIAL  STATE      STEP  LATEST  BEST  BEST STEP  BRACKET  RUNGS  DECISION
0      running    12    0.5     0.4   9          0        1      continue: promoted at rung 0 as the first to arrive
1      completed  3     1.2     1.2   3          0        1      stopped
2      queued     -     -       -     -          0        0      continue

Rungs:
  rung 0 (step 3): 2 joined, 1 promoted, 1 stopped (trial 1)
  rung 1 (step 27): 0 joined, 0 promoted, 0 stopped
  rung 2 (step 81): 0 joined, 0 done
`},
		{name: "unknown job", args: []string{"experiment", "show", "99"}, err: "master: 404 Not Found: job 99 does not exist"},
		{name: "a command job", args: []string{"experiment", "show", "2"}, err: "job 2 is a command job, not an experiment: allot job show 2 shows it"},
		{name: "a notebook", args: []string{"experiment", "show", "6"}, err: "job 6 is a notebook job, not an experiment"},
		{name: "bad output", args: []string{"experiment", "show", "3", "-o", "xml"}, err: `--output: expected one of`},
	})
	// allot experiment ID is allot experiment show ID, as allot job ID is
	// allot job show ID; a word that is no ID is an unknown command.
	short, _, err := runAt(t, f, "experiment", "3")
	long, _, _ := runAt(t, f, "experiment", "show", "3")
	if err != nil || short != long || !strings.HasPrefix(short, "Experiment 3  searcher asha") {
		t.Errorf("experiment 3: %v\n%s", err, short)
	}
	if _, _, err := runAt(t, f, "experiment", "shwo"); err == nil || !strings.Contains(err.Error(), "did you mean show?") {
		t.Errorf("experiment shwo: %v", err)
	}
	out, _, err := runAt(t, f, "experiment", "show", "3", "-o", "json")
	var m api.JobMetrics
	if err != nil || json.Unmarshal([]byte(out), &m) != nil || len(m.Points) != 4 || m.Trials[1].Decision != "stopped" ||
		len(m.Rungs) != 1 || len(m.Trials[1].RungJoins) != 1 || m.Trials[0].DecisionNote == "" {
		t.Errorf("experiment show -o json: %v\n%s", err, out)
	}
}

// TestExperimentBeforeReports: a searcher without a metric of its own
// (grid) names none until the trials report one, rather than "metric
// metric".
func TestExperimentBeforeReports(t *testing.T) {
	var b bytes.Buffer
	m := api.JobMetrics{JobID: 1, Searcher: "grid", SmallerIsBetter: true, Trials: []api.TrialMetrics{{Task: 0, State: "queued"}}}
	if err := printExperiment(&b, m, false); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "Experiment 1  searcher grid  metric none reported yet  reports 0" {
		t.Errorf("first line %q", first)
	}
}

// TestBestTrial: the Best line names the trial with the best value by
// the metric's order, the first of equals, and is left out before any
// report.
func TestBestTrial(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	trials := []api.TrialMetrics{{Task: 0, State: "queued"}, {Task: 1, Best: f(0.5), BestStep: i(9)},
		{Task: 2, Best: f(0.1146), BestStep: i(27)}, {Task: 3, Best: f(0.1146), BestStep: i(3)}, {Task: 4, Best: f(2), BestStep: i(1)}}
	for _, c := range []struct {
		name    string
		smaller bool
		trials  []api.TrialMetrics
		want    string
	}{
		{"smaller is better", true, trials, "Best: trial 2, loss 0.1146 at step 27"},
		{"larger is better", false, trials, "Best: trial 4, loss 2 at step 1"},
		{"no report yet", true, trials[:1], ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			m := api.JobMetrics{JobID: 1, Searcher: "asha", Metric: "loss", SmallerIsBetter: c.smaller, Trials: c.trials}
			if err := printExperiment(&b, m, false); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			got := lines[1]
			if got != c.want {
				t.Errorf("second line %q, want %q", got, c.want)
			}
		})
	}
}

// TestAttemptEndStopped: an attempt its searcher stopped reads END
// stopped, one a user killed killed.
func TestAttemptEndStopped(t *testing.T) {
	for _, c := range []struct {
		a    api.Attempt
		want string
	}{
		{api.Attempt{EndState: "killed", Reason: searcherStopped + " at step 3: loss 0.87 is not in the top 1/3"}, "stopped"},
		{api.Attempt{EndState: "killed", Reason: "killed by alice"}, "killed"},
		{api.Attempt{EndState: "completed", Reason: "completed"}, "completed"},
	} {
		t.Run(c.want+" "+c.a.Reason, func(t *testing.T) {
			if got := attemptEnd(c.a); got != c.want {
				t.Errorf("attemptEnd = %q, want %q", got, c.want)
			}
		})
	}
}

// TestExperimentUnjudged: the header names the metrics the trials
// reported when none is the searcher's, and a trial's DECISION carries
// the master's note (trial 2026-11-29i I16); an older master's answer,
// without the names, or one with reports of the metric, adds nothing.
func TestExperimentUnjudged(t *testing.T) {
	zero := 0
	points := make([]api.MetricPoint, 3)
	trial := api.TrialMetrics{Task: 0, State: "completed", Reports: 3, Bracket: &zero, Rung: &zero, Decision: "done",
		DecisionNote: "never reported loss; it reported val_loss"}
	for _, c := range []struct {
		name       string
		names      []string
		withMetric int
		want       string
	}{
		{"another name", []string{"val_loss"}, 0, "reports 3, none of metric loss; trials report val_loss, so the searcher judged no trial"},
		{"some of the metric", []string{"loss", "val_loss"}, 1, "reports 3\n"},
		{"older master", nil, 0, "reports 3\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			m := api.JobMetrics{JobID: 23, Searcher: "asha", Metric: "loss", SmallerIsBetter: true, Rungs: [][]int64{{1}},
				ReportedMetrics: c.names, MetricReports: c.withMetric, Points: points, Trials: []api.TrialMetrics{trial}}
			if err := printExperiment(&b, m, false); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), c.want) || !strings.Contains(b.String(), "done: never reported loss; it reported val_loss") {
				t.Errorf("output %q, want %q and the trial's note", b.String(), c.want)
			}
		})
	}
}
