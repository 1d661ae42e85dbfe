package sim_test

import (
	"testing"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/sim"
)

// Regression tests for five bugs of the scheduling core's quota policy
// (sched/quota*.go) that these tests found while the quota policy was
// being wired into the simulator; sched fixed them ("quota fixes": rounds
// within share before over-share growth, guaranteed work first, borrowing
// limited and reclaimed only where borrowed). Each test states the outcome
// the seeds and DESIGN.md ask for, through the whole simulator.

// runYAML replays a scenario given as text, with the timeline on.
func runYAML(t *testing.T, src string) *sim.Result {
	t.Helper()
	sc, err := scenario.Parse("regress.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: -1, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestQuotaReclaimPastInteractive: a project below its quota reclaims
// from a project over its quota even when that project's newest task is
// interactive. The core used to skip a victim project's whole run of tasks
// as soon as one of them (here the notebook) could not be taken.
func TestQuotaReclaimPastInteractive(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: gpu, policy: quota, nodes: [{name: n, slots: 4}]}
projects:
  - {name: A, quota: 2}
  - {name: B, quota: 2}
jobs:
  - {name: a-train, kind: experiment, project: A, tasks: 3}
  - {name: a-notebook, kind: notebook, project: A, submit: 1m}
  - {name: b-train, kind: experiment, project: B, submit: 10m, tasks: 2, duration: 1h}
events:
  - {at: 5h, kill: a-train}
  - {at: 5h, kill: a-notebook}
`)
	want := map[string]int{"a-train": 1, "a-notebook": 1, "b-train": 2}
	if got := slotsAt(res, 10*minute); !sameSlots(got, want) {
		t.Errorf("at 10m holdings %v, want %v: B below its quota "+
			"reclaims 2 of A's training tasks, A keeps its notebook and its quota of 2", got, want)
	}
}

// TestQuotaOSMOReclaimKeepsPoolWithinQuota: OSMO says LOW work of a pool
// that is under its quota is not preempted by other pools. pool1 runs one
// LOW task on one of its own 2 GPUs; pool2 runs NORMAL work and 2 LOW
// tasks, one of them on a GPU borrowed from pool1. When pool2 submits more
// NORMAL work the victim must be pool2's own LOW work; the core used to
// rank all borrowing work alike and take pool1's task.
func TestQuotaOSMOReclaimKeepsPoolWithinQuota(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: pool1, policy: quota, quota: 2, nodes: [{name: node, slots: 4}]}
  - {name: pool2, quota: 2, shares_nodes_with: pool1}
jobs:
  - {name: p1-low, pool: pool1, priority_class: LOW, duration: 3h}
  - {name: p2-normal, pool: pool2, priority_class: NORMAL, duration: 3h}
  - {name: p2-low, pool: pool2, priority_class: LOW, tasks: 2, duration: 3h}
  - {name: p2-normal-2, pool: pool2, priority_class: NORMAL, submit: 10m, duration: 1h}
`)
	want := map[string]int{"p1-low": 1, "p2-normal": 1, "p2-low": 1, "p2-normal-2": 1}
	if got := slotsAt(res, 10*minute); !sameSlots(got, want) {
		t.Errorf("at 10m holdings %v, want %v: pool1 is under its quota, so its LOW "+
			"work stays and pool2 preempts its own LOW task", got, want)
	}
}

// TestQuotaLimitCapsBorrowing: a project's limit caps the slots it may
// hold, borrowing (LOW-class) work included; the core used to place
// borrowing work on every idle slot.
func TestQuotaLimitCapsBorrowing(t *testing.T) {
	res := runYAML(t, `pools:
  - {name: gpu, policy: quota, nodes: [{name: n, slots: 8}]}
projects:
  - {name: A, quota: 2, limit: 3}
jobs:
  - {name: a-low, project: A, priority_class: LOW, tasks: 8, duration: 1h}
`)
	if got := slotsAt(res, 0)["a-low"]; got > 3 {
		t.Errorf("project A holds %d slots, past its limit of 3", got)
	}
}

func sameSlots(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestQuotaNoOwnProjectThrash: a project's non-interactive,
// non-preemptible work within quota (a command) may preempt the project's
// own unattended work. The core used to try it after earlier unattended
// work of the project, so when both waited for the same slots the
// unattended task started, the command preempted it in the next pass, and
// after its checkpoint it started again first: a cycle without end.
func TestQuotaNoOwnProjectThrash(t *testing.T) {
	sc, err := scenario.Parse("regress.yaml", []byte(`pools:
  - {name: gpu, policy: quota, checkpoint_cost: 1m, nodes: [{name: n, slots: 4}]}
projects:
  - {name: A, quota: 4}
jobs:
  - {name: first, project: A, slots: 4, duration: 1h}
  - {name: train, kind: experiment, project: A, submit: 1m, slots: 3}
  - {name: cmd, project: A, submit: 2m, slots: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: 3 * hour, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := job(t, res, "train").Preemptions; p > 1 {
		t.Errorf("train was preempted %d times by 3h; want at most once, "+
			"then the command runs", p)
	}
	if got := slotsAt(res, 3*hour)["cmd"]; got != 3 {
		t.Errorf("at 3h cmd holds %d slots, want 3", got)
	}
}

// TestQuotaNoOverQuotaStartThenReclaim: B (quota 0) must not start a
// 6-slot task on the slots A's second notebook needs within A's quota. The
// core used to let the most deprived project's unattended work take any
// free slots in a pass; the notebook, unable to reclaim a task that only
// starts in the same plan, preempted it in the next pass, and after the
// checkpoint B went first again, forever.
func TestQuotaNoOverQuotaStartThenReclaim(t *testing.T) {
	sc, err := scenario.Parse("regress.yaml", []byte(`pools:
  - {name: gpu, policy: quota, checkpoint_cost: 1m, nodes: [{name: n, slots: 8}]}
projects:
  - {name: A, quota: 4}
  - {name: B, quota: 0, over_quota_weight: 1}
jobs:
  - {name: a-nb-1, kind: notebook, project: A, slots: 2}
  - {name: b-train, kind: experiment, project: B, submit: 10m, slots: 6}
  - {name: a-nb-2, kind: notebook, project: A, submit: 10m, slots: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := sim.FromScenario(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(in, sim.Options{Until: 3 * hour, Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := job(t, res, "b-train").Preemptions; p > 1 {
		t.Errorf("b-train was preempted %d times by 3h; want at most once", p)
	}
	if got := slotsAt(res, 3*hour)["a-nb-2"]; got != 2 {
		t.Errorf("at 3h a-nb-2 holds %d slots, want 2 (within A's quota of 4)", got)
	}
}
