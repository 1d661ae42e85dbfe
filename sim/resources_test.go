package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/sim"
)

// TestLicenses: licenses are cluster-wide, so a job in one pool waits for
// the licenses a job in another pool holds, and starts when they come back;
// a job that needs none is not held up.
func TestLicenses(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: a, policy: fifo, nodes: [{name: n, slots: 4}]}
  - {name: b, policy: priority, nodes: [{name: m, slots: 4}]}
licenses: {matlab: 2}
jobs:
  - {name: first, pool: a, duration: 1h, licenses: {matlab: 2}}
  - {name: second, pool: b, duration: 1h, licenses: {matlab: 1}}
  - {name: free, pool: a, duration: 1h}
`)
	for name, at := range map[string]int64{"first": 0, "free": 0, "second": hour} {
		if j := job(t, res, name); j.Start == nil || *j.Start != at {
			t.Errorf("%s started at %s, want t=%d", name, startOf(j), at)
		}
	}
}

// TestQOSPreempt: in a priority pool without preemption, a job of a QOS
// that may preempt still preempts less important work of a lower QOS.
func TestQOSPreempt(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: gpu, policy: priority, nodes: [{name: n, slots: 4}]}
qos: [{name: normal}, {name: emergency, priority: 100, preempt: true}]
jobs:
  - {name: batch, kind: experiment, tasks: 4, duration: 2h, priority: 50}
  - {name: urgent, submit: 10m, slots: 2, duration: 30m, priority: 10, qos: emergency}
  - {name: polite, submit: 10m, slots: 1, duration: 30m, priority: 10}
`)
	if j := job(t, res, "urgent"); j.Start == nil || *j.Start != 10*minute {
		t.Errorf("urgent started at %s, want 10m: its QOS preempts", startOf(j))
	}
	if j := job(t, res, "batch"); j.Preemptions != 2 {
		t.Errorf("batch preempted %d times, want 2 (for urgent's 2 slots only)", j.Preemptions)
	}
	if j := job(t, res, "polite"); j.Start == nil || *j.Start == 10*minute {
		t.Errorf("polite started at %s; without a preempting QOS it waits", startOf(j))
	}
}

// startOf renders a job's start for messages.
func startOf(j sim.JobResult) string {
	if j.Start == nil {
		return "never"
	}
	return sim.Clock(*j.Start)
}
