package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

// Regression tests for bugs of the scheduling core (sched/) found while
// wiring its mechanisms into the simulator; each states the outcome the
// core's own documentation promises, through the whole simulator.

// TestLicensesOfMovedTasks: sched/licenses.go's licensePass.reset
// subtracts a job's licenses once per allocation in the snapshot. A task
// that consolidation moved (or an elastic task that grew onto other
// nodes) is two allocations until its checkpoint lands: its new placement,
// running, and its old one, Preempting and Moving. So its licenses count
// twice while it drains, although it is one task holding them once
// (License: "A task holds its job's licenses from its start until its
// allocation is gone"). Here eight one-GPU trials hold 8 of 10 matlab
// licenses; at 10m four of them move to make room for an 8-GPU job and
// drain for five minutes. A solver needing 2 licenses arrives at 11m:
// 2 are free, but the core reports "0 of 10 free" and the solver waits
// until the moves had drained at 15m. Moving allocations are now skipped
// when counting what is held and in the EASY and conservative license
// releases.
func TestLicensesOfMovedTasks(t *testing.T) {
	var free = -1
	res := runYAMLInspect(t, `pools:
  - name: gpu
    policy: priority
    placement: spread
    checkpoint_cost: 5m
    nodes: [{name: node, count: 2, slots: 8}]
  - {name: cpu, policy: fifo, nodes: [{name: c, slots: 4}]}
licenses: {matlab: 10}
jobs:
  - {name: small, kind: experiment, tasks: 8, slots: 1, duration: 2h, licenses: {matlab: 1}}
  - {name: big, kind: experiment, submit: 10m, slots: 8, duration: 1h}
  - {name: solver, pool: cpu, submit: 11m, slots: 1, duration: 1h, licenses: {matlab: 2}}
`, func(now int64, s *sched.Snapshot, p *sched.Plan) {
		for _, pe := range p.Pending {
			if now == 11*minute && s.Jobs[pe.Job].ID == "solver" && pe.Reason == sched.ReasonLicense {
				free = pe.LicenseFree
			}
		}
	})
	if res.Metrics.Moves != 4 {
		t.Fatalf("%d moves, want 4: the scenario no longer shows the bug", res.Metrics.Moves)
	}
	if j := job(t, res, "solver"); j.Start == nil || *j.Start != 11*minute {
		t.Errorf("solver started at %s, want 11m: 8 of the 10 licenses are held (the core saw %d free)", startOf(j), free)
	}
}
