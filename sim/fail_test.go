package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// TestScriptedFails: a task fails after the work its job's fails give,
// counted across a preemption and at the rate of an elastic task's
// slots, and as its work ends; after no work, at the instant it starts,
// its slots starting other work in that instant (as a failed start
// does); one after the task's end is refused by the scenario parser
// (TestParseErrorsFails).
func TestScriptedFails(t *testing.T) {
	const src = `
pools:
  - name: default
    policy: priority
    preemption: true
    nodes: [{name: n1, slots: 2}]
jobs:
  - {name: a, tasks: 2, duration: 100, fails: [{task: 1, after: 30}], preemptible: true, priority: 80}
  - {name: b, submit: 10, duration: 20, priority: 10}
  - {name: e, submit: 200, slots: 2, min_slots: 1, duration: 100, fails: [{task: 0, after: 50}]}
  - {name: late, submit: 400, duration: 10, fails: [{task: 0, after: 10}]}
  - {name: zero, submit: 600, slots: 2, duration: 10, fails: [{task: 0, after: 0}]}
  - {name: next, submit: 600, slots: 2, duration: 10}
`
	sc, err := scenario.Parse("fails.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := runAttempts(t, sc)
	want := map[string]string{
		// Task 1 works 10s, is preempted by b, resumes at 30 and fails
		// after 20s more.
		"a": "failed: 0@0-100 COMPLETED, 1@0-10 FAILED_PREEMPTED, 1@30-50 FAILED",
		"b": "completed: 0@10-30 COMPLETED",
		// 100 slot-seconds at 2 slots.
		"e": "failed: 0@200-250 FAILED",
		// Failing as the work ends, it fails.
		"late": "failed: 0@400-410 FAILED",
		// Failing as its work begins, it fails as it starts, and next
		// takes its slots in the same instant.
		"zero": "failed: 0@600-600 FAILED",
		"next": "completed: 0@600-610 COMPLETED",
	}
	checkAttempts(t, res, want)
	// A failure of its own counts as failed in the summary, as one
	// after a preemption does: sim compare's "completed / failed /
	// killed" row (trial n F8).
	if m := res.Metrics; m.Failed != 4 || m.Completed != 2 || m.Killed != 0 || m.Unfinished != 0 {
		t.Errorf("metrics: %d completed, %d failed, %d killed, %d unfinished; want 2, 4, 0, 0",
			m.Completed, m.Failed, m.Killed, m.Unfinished)
	}
}

// TestExperimentTrialFails: an experiment one of whose trials failed
// ends completed when another completed (lifecycle.EndedJob, as the
// master's), failed when none did; a command job of two tasks fails.
func TestExperimentTrialFails(t *testing.T) {
	const src = `
pools:
  - name: default
    policy: fifo
    nodes: [{name: n1, slots: 6}]
jobs:
  - {name: one, kind: experiment, tasks: 2, duration: 100, fails: [{task: 1, after: 30}]}
  - {name: all, kind: experiment, tasks: 2, duration: 100, fails: [{task: 0, after: 30}, {task: 1, after: 40}]}
  - {name: cmd, tasks: 2, duration: 100, fails: [{task: 1, after: 30}]}
`
	sc, err := scenario.Parse("trialfails.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, runAttempts(t, sc), map[string]string{
		"one": "completed: 0@0-100 COMPLETED, 1@0-30 FAILED",
		"all": "failed: 0@0-30 FAILED, 1@0-40 FAILED",
		"cmd": "failed: 0@0-100 COMPLETED, 1@0-30 FAILED",
	})
}

// TestScriptedStartFails: a start that fails ends its task failed at the
// instant it started, never retried, and its slots start other work in
// the same instant; the attempt named may be a resume after a
// preemption; a task whose scripted attempt never comes completes.
func TestScriptedStartFails(t *testing.T) {
	const src = `
pools:
  - name: default
    policy: priority
    preemption: true
    nodes: [{name: n1, slots: 2}]
jobs:
  - {name: x, slots: 2, duration: 100, start_fails: [{task: 0}], preemptible: true, max_retries: 3}
  - {name: w, slots: 1, duration: 50}
  - {name: a, submit: 100, tasks: 2, duration: 100, start_fails: [{task: 1, attempt: 2}], preemptible: true, priority: 80}
  - {name: b, submit: 110, duration: 20, priority: 10}
  - {name: never, submit: 400, duration: 10, start_fails: [{task: 0, attempt: 2}]}
  - {name: forever, submit: 500, start_fails: [{task: 0}]}
`
	sc, err := scenario.Parse("startfails.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := runAttempts(t, sc)
	want := map[string]string{
		// It cannot start, though preemptible with retries left; w
		// starts on its slots at the same instant.
		"x": "failed: 0@0-0 FAILED",
		"w": "completed: 0@0-50 COMPLETED",
		// Task 1 is preempted by b, and its resume cannot start.
		"a":       "failed: 0@100-200 COMPLETED, 1@100-110 FAILED_PREEMPTED, 1@130-130 FAILED",
		"b":       "completed: 0@110-130 COMPLETED",
		"never":   "completed: 0@400-410 COMPLETED",
		"forever": "failed: 0@500-500 FAILED",
	}
	checkAttempts(t, res, want)
}

// TestScriptedLost: an attempt lost while its node stays up ends as on a
// lost node: a preemptible job's task keeps what its last periodic
// checkpoint saved and waits again, one of a job that is not preemptible
// fails with its job; a loss after the attempt ended, or of an attempt
// that never comes, does nothing. A loss 0 seconds in comes once the
// instant of the start has settled: the task waits again and restarts
// in that instant, or fails.
func TestScriptedLost(t *testing.T) {
	const src = `
pools:
  - name: default
    policy: fifo
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: p, duration: 100, checkpoint_every: 20, preemptible: true, lost: [{task: 0, after: 50}]}
  - {name: np, duration: 100, lost: [{task: 0, after: 30}]}
  - {name: late, duration: 10, lost: [{task: 0, after: 30}]}
  - {name: never, duration: 10, lost: [{task: 0, attempt: 2, after: 5}]}
  - {name: p0, submit: 200, duration: 100, preemptible: true, lost: [{task: 0, after: 0}]}
  - {name: np0, submit: 200, duration: 100, lost: [{task: 0, after: 0}]}
`
	sc, err := scenario.Parse("lost.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := runAttempts(t, sc)
	want := map[string]string{
		// 40 of its 50 seconds were saved: 60 left from 50.
		"p":     "completed: 0@0-50 FAILED_NODE_LOST, 0@50-110 COMPLETED",
		"np":    "failed: 0@0-30 FAILED_NODE_LOST",
		"late":  "completed: 0@0-10 COMPLETED",
		"never": "completed: 0@0-10 COMPLETED",
		"p0":    "completed: 0@200-200 FAILED_NODE_LOST, 0@200-300 COMPLETED",
		"np0":   "failed: 0@200-200 FAILED_NODE_LOST",
	}
	checkAttempts(t, res, want)
	// p threw away 10 s, np 30 s, each at one slot.
	if got := res.Metrics.LostWorkSlotHours; !near(got, round6(40.0/3600)) {
		t.Errorf("lost work %v slot-hours, want %v", got, round6(40.0/3600))
	}
}

// checkAttempts compares each job's state and attempts, as
// "state: task@start-end STATE, ...", with want's line for it.
func checkAttempts(t *testing.T, res *sim.Result, want map[string]string) {
	t.Helper()
	for _, j := range res.Jobs {
		t.Run(j.Name, func(t *testing.T) {
			var atts []string
			for _, a := range j.Attempts {
				atts = append(atts, fmt.Sprintf("%d@%d-%d %s", a.Task, a.Start, *a.End, a.State))
			}
			if got := fmt.Sprintf("%s: %s", j.State, strings.Join(atts, ", ")); got != want[j.Name] {
				t.Errorf("got  %s\nwant %s", got, want[j.Name])
			}
		})
	}
}
