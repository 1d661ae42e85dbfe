package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// TestScriptedFails: a task fails after the work its job's fails give,
// counted across a preemption and at the rate of an elastic task's
// slots, and as its work ends; one after the task's end is refused by
// the scenario parser (TestParseErrorsFails).
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
	}
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
