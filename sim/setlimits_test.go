package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/sim"
)

// TestSetTimeLimit: set_time_limit below what a running task has run
// ends it at the event, past its limit; above, at the new limit from its
// start; raised, at the end of its work.
func TestSetTimeLimit(t *testing.T) {
	res := runYAMLAttempts(t, `pools: [{name: p, policy: fifo, nodes: [{name: n, slots: 3}]}]
jobs:
  - {name: past, duration: 1000, time_limit: 500}
  - {name: later, duration: 1000}
  - {name: raised, duration: 400, time_limit: 100}
events:
  - {at: 100, set_time_limit: {job: past, time_limit: 60}}
  - {at: 50, set_time_limit: {job: later, time_limit: 5m}}
  - {at: 50, set_time_limit: {job: raised, time_limit: 10m}}
`)
	want := map[string]struct {
		end   int64
		state sim.AttemptState
	}{
		"past":   {100, sim.AttemptTimeLimit},
		"later":  {300, sim.AttemptTimeLimit},
		"raised": {400, sim.AttemptCompleted},
	}
	if len(res.Jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(res.Jobs), len(want))
	}
	for _, j := range res.Jobs {
		t.Run(j.Name, func(t *testing.T) {
			w := want[j.Name]
			if len(j.Attempts) != 1 || j.Attempts[0].End == nil || *j.Attempts[0].End != w.end || j.Attempts[0].State != w.state {
				t.Fatalf("attempts %+v, want one ending %s at %d", j.Attempts, w.state, w.end)
			}
		})
	}
}

// TestSetNiceAndQOS: set_nice and set_qos reorder a multifactor pool's
// queue: w1, first by age, is given nice 500 and w3 the QOS high, so
// that they start w3, w2, w1 after x.
func TestSetNiceAndQOS(t *testing.T) {
	res := runYAMLAttempts(t, `pools:
  - {name: p, policy: multifactor, multifactor: {qos: 1000, age: 10, max_age: 1h}, nodes: [{name: n, slots: 4}]}
qos: [{name: normal}, {name: high, priority: 10}]
jobs:
  - {name: x, pool: p, slots: 4, duration: 100}
  - {name: w1, pool: p, slots: 4, submit: 1, duration: 100}
  - {name: w2, pool: p, slots: 4, submit: 2, duration: 100}
  - {name: w3, pool: p, slots: 4, submit: 3, duration: 100}
events:
  - {at: 50, set_nice: {job: w1, nice: 500}}
  - {at: 60, set_qos: {job: w3, qos: high}}
`)
	starts := map[string]int64{"x": 0, "w3": 100, "w2": 200, "w1": 300}
	if len(res.Jobs) != len(starts) {
		t.Fatalf("%d jobs, want %d", len(res.Jobs), len(starts))
	}
	for _, j := range res.Jobs {
		if len(j.Attempts) != 1 || j.Attempts[0].Start != starts[j.Name] {
			t.Errorf("job %s: attempts %+v, want one starting at %d", j.Name, j.Attempts, starts[j.Name])
		}
	}
}
