package sim

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
)

// TestRequeuesCounted: a requeue event's checkpoint counts in the
// slot-hours lost, and the requeue among the requeues, not the
// preemptions (no pass asked it), so that the lost time has a cause.
func TestRequeuesCounted(t *testing.T) {
	const pools = `pools:
  - name: default
    policy: priority
    preemption: true
    checkpoint_cost: 36
    nodes: [{name: n1, slots: 4}]
jobs:
  - {name: a, submit: 0, slots: 2, duration: 1000, preemptible: true}
  - {name: b, submit: 0, slots: 2, duration: 1000, preemptible: true}
`
	for _, tc := range []struct {
		name     string
		events   string
		requeues int
		lost     float64
	}{
		{"no requeue", "", 0, 0},
		{"one requeue", "events:\n  - {at: 100, requeue: a}\n", 1, 0.02},
		{"two jobs requeued, one held", "events:\n  - {at: 100, requeue: a}\n  - {at: 200, requeue: b, hold: true}\n  - {at: 300, release: b}\n", 2, 0.04},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("s.yaml", []byte(pools+tc.events))
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
			m := res.Metrics
			if m.Preemptions != 0 || m.Requeues != tc.requeues || m.PreemptionLostSlotHours != tc.lost {
				t.Errorf("preemptions %d, requeues %d, lost %v; want 0, %d, %v",
					m.Preemptions, m.Requeues, m.PreemptionLostSlotHours, tc.requeues, tc.lost)
			}
		})
	}
}
