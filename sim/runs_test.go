package sim_test

import (
	"strings"
	"testing"

	"github.com/allot-sched/allot/decisionlog"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// runsStops is a scenario of runs (tasks with run times of their own)
// and stops (tasks stopped as a searcher stops a trial live).
const runsStops = `
pools:
  - name: default
    policy: priority
    preemption: true
    nodes: [{name: n1, slots: 2}]
jobs:
  - {name: r, tasks: 3, duration: 100, runs: [{task: 0, work: 30}, {task: 2, work: 0}]}
  - {name: s, submit: 200, tasks: 2, duration: 100, stops: [{task: 1, after: 40}, {task: 0, after: 100}]}
  - {name: e, submit: 400, slots: 2, min_slots: 1, duration: 100, runs: [{task: 0, work: 50}]}
  - {name: p, submit: 600, slots: 2, duration: 100, stops: [{task: 0, after: 40}], preemptible: true, priority: 80}
  - {name: u, submit: 610, slots: 2, duration: 20, priority: 10}
  - {name: z, submit: 800, slots: 2, duration: 10, stops: [{task: 0, after: 0}]}
  - {name: next, submit: 800, slots: 2, duration: 10}
`

// TestScriptedRunsStops: a task with a run of its own completes after
// that work (counted at the rate of an elastic task's slots; after none,
// as it starts) and the others after the job's duration; a stopped task
// ends its attempt killed (FAILED_CANCELED) after its work, counted
// across a preemption, at its run time itself too (the stop comes
// first), or as it starts, its slots starting other work in that
// instant; the task is completed, and so is its job.
func TestScriptedRunsStops(t *testing.T) {
	sc, err := scenario.Parse("runs.yaml", []byte(runsStops))
	if err != nil {
		t.Fatal(err)
	}
	res := runAttempts(t, sc)
	want := map[string]string{
		// Tasks 0 and 1 start at 0; 0 completes at 30 and 2, with no
		// work, completes as it starts.
		"r": "completed: 0@0-30 COMPLETED, 1@0-100 COMPLETED, 2@30-30 COMPLETED",
		"s": "completed: 0@200-300 FAILED_CANCELED, 1@200-240 FAILED_CANCELED",
		// 50 s at full size: 100 slot-seconds at 2 slots.
		"e": "completed: 0@400-450 COMPLETED",
		// 10 s of work, preempted by u, resumes at 630 and is stopped
		// after 30 s more.
		"p":    "completed: 0@600-610 FAILED_PREEMPTED, 0@630-660 FAILED_CANCELED",
		"u":    "completed: 0@610-630 COMPLETED",
		"z":    "completed: 0@800-800 FAILED_CANCELED",
		"next": "completed: 0@800-810 COMPLETED",
	}
	checkAttempts(t, res, want)
}

// TestStopDecisions: the decision log ends a stopped attempt how=killed,
// as the live master's log ends a trial its searcher stopped, with no
// kill line (the job was not killed).
func TestStopDecisions(t *testing.T) {
	sc, err := scenario.Parse("runs.yaml", []byte(runsStops))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ds {
		if d.Job == "s" {
			got = append(got, d.Line())
		}
		if d.Kind == decisionlog.Kill {
			t.Errorf("a kill line: %s", d.Line())
		}
	}
	want := []string{"200 start s task=0 attempt=1 nodes=n1:1", "200 start s task=1 attempt=1 nodes=n1:1",
		"240 end s task=1 attempt=1 how=killed", "300 end s task=0 attempt=1 how=killed"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("job s's decisions:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFailAndStopWithinRuns: a task with its own run time fails (or is
// stopped) after more work than the job's run time, within its own: f's
// task 0 runs 300s of its own and fails at 200, its task 1 completes at
// the job's 100; s's task 0 is stopped at 250 of its 400.
func TestFailAndStopWithinRuns(t *testing.T) {
	const src = `pools:
  - name: default
    policy: fifo
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: f, submit: 0, tasks: 2, slots: 1, duration: 100, runs: [{task: 0, work: 300}], fails: [{task: 0, after: 200}]}
  - {name: s, submit: 0, slots: 1, duration: 100, runs: [{task: 0, work: 400}], stops: [{task: 0, after: 250}]}
`
	sc, err := scenario.Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := sim.ReplayDecisions(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := `0 start f task=0 attempt=1 nodes=n1:1
0 start f task=1 attempt=1 nodes=n1:1
0 start s task=0 attempt=1 nodes=n1:1
100 end f task=1 attempt=1 how=completed
200 end f task=0 attempt=1 how=failed
250 end s task=0 attempt=1 how=killed
`
	if got := decisionlog.Format(ds); got != want {
		t.Errorf("decisions:\n%s\nwant:\n%s", got, want)
	}
}
