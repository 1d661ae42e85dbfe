package sim

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// TestAgentPreemptedCountsNoPreemption: an attempt its agent preempted
// (a leave, or its fence in a master outage, which the what-if export
// writes as agent_preempted) is no preemption in the run's metrics nor
// in its job's: no pass asked for it, as allot explain does not count it
// (trial 2026-11-29a A8). The one pass preemption (h over s) counts.
func TestAgentPreemptedCountsNoPreemption(t *testing.T) {
	const src = `pools:
  - name: default
    policy: priority
    preemption: true
    nodes: [{name: n1, slots: 2}, {name: n2, slots: 2}]
jobs:
  - {name: p, submit: 0, slots: 1, duration: 300, preemptible: true, checkpoint_every: 40, agent_preempted: [{task: 0, after: 100}]}
  - {name: s, submit: 0, slots: 2, duration: 300, priority: 80}
  - {name: h, submit: 50, slots: 2, duration: 200, priority: 10}
`
	sc, err := scenario.Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(in, Options{Until: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Preemptions != 1 {
		t.Errorf("preemptions %d, want 1 (h over s; not p's agent stop)", res.Metrics.Preemptions)
	}
	for _, j := range res.Jobs {
		want := map[string]int{"s": 1}[j.Name]
		if j.Preemptions != want {
			t.Errorf("job %s: preemptions %d, want %d", j.Name, j.Preemptions, want)
		}
		// p's agent stopped it at 100, keeping 80 of its 100 s.
		if j.Name == "p" && (j.End == nil || *j.End != 320) {
			t.Errorf("job p ended at %v, want 320: its agent's stop did not apply", j.End)
		}
	}
}
