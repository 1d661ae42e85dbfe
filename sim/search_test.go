package sim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sched/allot/metrics"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/searcher"
	"github.com/allot-sched/allot/sim"
)

// Experiments with an adaptive searcher and known metric curves (issue 17
// item 4): the decisions the searcher makes in the simulator, derived by
// hand in the comments of the scenario files.

// join is one rung a trial joined: the time in minutes and the decision.
type join struct {
	rung     int
	step     int64
	minute   int64
	decision string
}

// trialWant is what a trial's search result must be.
type trialWant struct {
	bracket int
	joins   []join
}

const (
	promoted = sim.RungPromoted
	stopped  = sim.RungStopped
	done     = sim.RungDone
)

func TestSearchHandDerived(t *testing.T) {
	tests := []struct {
		file   string
		job    string
		end    int64 // minutes
		trials []trialWant
	}{
		{"asha-9-trials.yaml", "hpo", 150, []trialWant{
			{0, []join{{0, 1, 10, promoted}, {1, 3, 30, promoted}, {2, 9, 90, done}}},
			{0, []join{{0, 1, 10, stopped}}},
			{0, []join{{0, 1, 10, promoted}, {1, 3, 30, promoted}, {2, 9, 90, done}}},
			{0, []join{{0, 1, 20, stopped}}},
			{0, []join{{0, 1, 30, promoted}, {1, 3, 50, stopped}}},
			{0, []join{{0, 1, 60, stopped}}},
			{0, []join{{0, 1, 70, promoted}, {1, 3, 90, promoted}, {2, 9, 150, done}}},
			{0, []join{{0, 1, 100, stopped}}},
			{0, []join{{0, 1, 100, stopped}}},
		}},
		{"adaptive-asha.yaml", "tune", 9, []trialWant{
			{0, []join{{0, 1, 1, promoted}, {1, 3, 3, promoted}, {2, 9, 9, done}}},
			{1, []join{{0, 3, 3, promoted}, {1, 9, 9, done}}},
			{0, []join{{0, 1, 1, promoted}, {1, 3, 3, promoted}, {2, 9, 9, done}}},
			{0, []join{{0, 1, 1, stopped}}},
			{1, []join{{0, 3, 3, promoted}, {1, 9, 9, done}}},
			{0, []join{{0, 1, 1, stopped}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			res := runScenario(t, filepath.Join(scenarioDir, tc.file))
			j := job(t, res, tc.job)
			if j.State != sim.StateCompleted || j.End == nil || *j.End != tc.end*minute {
				t.Fatalf("job %s %s, ends at %v; want completed at %dm", j.Name, j.State, j.End, tc.end)
			}
			if j.Search == nil || len(j.Search.Trials) != len(tc.trials) {
				t.Fatalf("search %+v, want %d trials", j.Search, len(tc.trials))
			}
			for i, want := range tc.trials {
				checkTrial(t, j.Search.Trials[i], i, want)
			}
		})
	}
}

func checkTrial(t *testing.T, got sim.TrialResult, i int, want trialWant) {
	t.Helper()
	t.Run(fmt.Sprintf("trial-%d", i), func(t *testing.T) {
		if got.Trial != i || got.Bracket != want.bracket || len(got.Rungs) != len(want.joins) {
			t.Fatalf("trial %d bracket %d with %d rungs %+v; want trial %d bracket %d, %d rungs",
				got.Trial, got.Bracket, len(got.Rungs), got.Rungs, i, want.bracket, len(want.joins))
		}
		for k, w := range want.joins {
			g := got.Rungs[k]
			if g.Rung != w.rung || g.Step != w.step || g.At != w.minute*minute || g.Decision != w.decision {
				t.Errorf("rung %d: %+v; want rung %d at step %d, %dm, %s", k, g, w.rung, w.step, w.minute, w.decision)
			}
		}
		last := want.joins[len(want.joins)-1].decision
		if string(got.Decision) != last && last != promoted {
			t.Errorf("decision %s, want %s", got.Decision, last)
		}
		if (last == stopped) != (got.Reason != "") {
			t.Errorf("reason %q for a trial whose last decision is %s", got.Reason, last)
		}
	})
}

// runYAMLAttempts replays a scenario given as text, recording attempts.
func runYAMLAttempts(t *testing.T, src string) *sim.Result {
	t.Helper()
	sc, err := scenario.Parse("inline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Timeline: true, Attempts: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSearchPreemptResume: a trial preempted by urgent work resumes from
// its last checkpoint and reports the steps past the last one it reported,
// at times shifted by the wait and the lost work; the searcher sees each
// step once, as on the master.
//
// Trial 0 reports step 1 at 10m and step 3 at 30m (both first at their
// rungs). Urgent work preempts it at 35m; its checkpoint is from 20m (step
// 2), so 15 minutes are lost. It resumes at 55m with 70 minutes to go and
// reaches step 3 again at 65m (not reported again) and step 9 at 125m:
// done. Trial 1 then starts and is stopped at step 1 at 135m, worse than
// trial 0 there.
func TestSearchPreemptResume(t *testing.T) {
	res := runYAMLAttempts(t, `
pools:
  - {name: gpu, policy: priority, preemption: true, nodes: [{name: g, slots: 1}]}
jobs:
  - name: hpo
    kind: experiment
    step_time: 10m
    checkpoint_every: 20m
    searcher: {name: asha, metric: loss, max_length: 9, divisor: 3, num_rungs: 3, max_trials: 2}
    trials:
      - {metric: [[1, 0.5], [2, 0.45], [3, 0.4], [9, 0.3]]}
      - {metric: [[1, 0.6], [3, 0.5], [9, 0.4]]}
  - {name: urgent, submit: 35m, priority: 10, duration: 20m}
`)
	j := job(t, res, "hpo")
	checkTrial(t, j.Search.Trials[0], 0, trialWant{0, []join{{0, 1, 10, promoted}, {1, 3, 30, promoted}, {2, 9, 125, done}}})
	checkTrial(t, j.Search.Trials[1], 1, trialWant{0, []join{{0, 1, 135, stopped}}})
	want := []struct {
		task       int
		start, end int64 // minutes
		state      sim.AttemptState
	}{{0, 0, 35, sim.AttemptPreempted}, {0, 55, 125, sim.AttemptCompleted}, {1, 125, 135, sim.AttemptCanceled}}
	if len(j.Attempts) != len(want) {
		t.Fatalf("attempts %+v, want %d", j.Attempts, len(want))
	}
	for i, w := range want {
		a := j.Attempts[i]
		if a.Task != w.task || a.Start != w.start*minute || a.End == nil || *a.End != w.end*minute || a.State != w.state {
			t.Errorf("attempt %d: %+v (end %v), want %+v", i, a, a.End, w)
		}
	}
	if *j.End != 135*minute || j.State != sim.StateCompleted {
		t.Errorf("hpo %s at %v, want completed at 135m", j.State, *j.End)
	}
}

// TestSearchReport: the readable report sums each search up rung by rung
// and names the stopped trials.
func TestSearchReport(t *testing.T) {
	res := runScenario(t, filepath.Join(scenarioDir, "asha-9-trials.yaml"))
	var b bytes.Buffer
	if err := sim.WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"experiment hpo: asha on loss (smaller is better), divisor 3, 9 trials\n",
		"  rung 0 (step 1): 9 joined, 4 promoted, 5 stopped (trials 1, 3, 5, 7, 8)\n",
		"  rung 1 (step 3): 4 joined, 3 promoted, 1 stopped (trial 4)\n",
		"  rung 2 (step 9): 3 joined, 3 done (trials 0, 2, 6)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestReportPlurals: a count of one takes the singular noun in the
// report, more than one the plural.
func TestReportPlurals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		x     float64
		wants []string
	}{
		{"one", 1, 1, []string{
			"queue        mean 1 job, max 1\n",
			"lost         1 slot-hour checkpointing after preemption, move or resize\n",
			"lost work    1 slot-hour since the last checkpoints (preempted or lost)\n",
			"moved        1 task (consolidation)\n",
			"resized      1 elastic task grown\n",
			"Jain 1 over 1 project\n",
			"divisor 3, 1 trial\n",
			"  1 trial not judged to the end:",
		}},
		{"several", 2, 2.5, []string{
			"queue        mean 2.5 jobs, max 2\n",
			"lost         2.5 slot-hours checkpointing after preemption, move or resize\n",
			"lost work    2.5 slot-hours since the last checkpoints (preempted or lost)\n",
			"moved        2 tasks (consolidation)\n",
			"resized      2 elastic tasks grown\n",
			"Jain 1 over 2 projects\n",
			"divisor 3, 2 trials\n",
			"  2 trials not judged to the end:",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &sim.Result{Metrics: sim.Metrics{
				Preemptions: 1, AvgQueue: tc.x, MaxQueue: tc.n,
				PreemptionLostSlotHours: tc.x, LostWorkSlotHours: tc.x,
				Moves: tc.n, Resizes: tc.n, JainFairness: 1,
				Projects: make([]metrics.ProjectSummary, tc.n),
			}}
			search := &sim.SearchResult{Searcher: "asha", Metric: "loss", Divisor: 3, Rungs: [][]int64{{1}}}
			for i := 0; i < tc.n; i++ {
				search.Trials = append(search.Trials, sim.TrialResult{Trial: i, Decision: searcher.Continue})
			}
			res.Jobs = []sim.JobResult{{Name: "hpo", State: sim.StateRunning, Search: search}}
			var b bytes.Buffer
			if err := sim.WriteReport(&b, res); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.wants {
				if !strings.Contains(b.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, b.String())
				}
			}
		})
	}
}

// TestSearchFailedTrial: a trial its scenario's fails end before the
// searcher's last word is reported failed, in the result and the report,
// not as still training.
func TestSearchFailedTrial(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(scenarioDir, "asha-9-trials.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Trial 3 starts at 10m and would report at 20m; it fails at 15m.
	text := strings.Replace(string(src), "\n    trials:\n", "\n    fails: [{task: 3, after: 5m}]\n    trials:\n", 1)
	path := filepath.Join(t.TempDir(), "asha-fail.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	res := runScenario(t, path)
	search := res.Jobs[0].Search
	for _, tc := range []struct {
		name  string
		trial int
		want  searcher.Decision
	}{
		{"the failed trial", 3, sim.TrialFailed},
		{"a stopped trial", 1, searcher.Stop},
		{"a done trial", 0, searcher.Done},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := search.Trials[tc.trial].Decision; got != tc.want {
				t.Errorf("trial %d: %s, want %s", tc.trial, got, tc.want)
			}
		})
	}
	var b bytes.Buffer
	if err := sim.WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  1 trial failed (trial 3)\n") || strings.Contains(b.String(), "not judged") {
		t.Errorf("report does not say trial 3 failed, or calls it not judged:\n%s", b.String())
	}
}
