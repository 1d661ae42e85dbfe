package sched

import (
	"slices"
	"testing"
)

// preemptedStarts lists the start time of each preempted allocation, in
// plan order.
func preemptedStarts(s *Snapshot, plan *Plan) []int64 {
	var out []int64
	for _, pe := range plan.Preemptions {
		out = append(out, s.Allocs[pe.Alloc].Start)
	}
	return out
}

// priorityVictims is a priority pool with one 4-slot node held by four
// one-slot low-priority tasks started at 10, 20, 30 and 40, and a
// high-priority job waiting for one slot.
func priorityVictims(minRun int64, checkpoints ...int64) *Snapshot {
	s := &Snapshot{Now: 100, Pools: []Pool{{Name: "gpu", Policy: PolicyPriority, Preemption: true,
		Placement: PlaceBinpack, MinRunTime: minRun}}}
	s.Nodes = []Node{{Name: "n1", Slots: 4, ZeroSlotLimit: 10}}
	s.Jobs = []Job{
		{ID: "low", Priority: 80, Weight: 1, Preemptible: true, Slots: 1, MaxRunning: 10},
		{ID: "high", Priority: 10, Weight: 1, Slots: 1, Waiting: 1, MaxRunning: 1, Submit: 50, Seq: 1},
	}
	for i, start := range []int64{10, 20, 30, 40} {
		a := Alloc{Job: 0, Nodes: []NodeSlots{{Node: 0, Slots: 1}}, Start: start}
		if i < len(checkpoints) {
			a.Checkpoint = checkpoints[i]
		}
		s.Allocs = append(s.Allocs, a)
	}
	return s
}

func TestThrashGuards(t *testing.T) {
	cases := []struct {
		name string
		snap *Snapshot
		// want is the start time of each preempted allocation.
		want []int64
	}{
		{"without checkpoints the newest task is the victim",
			priorityVictims(0), []int64{40}},
		{"the task that checkpointed last loses least and is the victim",
			priorityVictims(0, 0, 95, 60, 70), []int64{20}},
		{"a checkpoint before the start counts as none",
			priorityVictims(0, 5, 15, 25, 35), []int64{40}},
		{"tasks younger than the minimum run time are protected",
			priorityVictims(75), []int64{20}},
		{"when every task is too young nothing is preempted",
			priorityVictims(91), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := quotaPlan(t, c.snap)
			if got := preemptedStarts(c.snap, plan); !slices.Equal(got, c.want) {
				t.Fatalf("preempted tasks started at %v, want %v", got, c.want)
			}
		})
	}
}

// TestPreemptBudget checks the per-project preemption budget: preemptions
// already made in the last hour and those planned in this pass both count.
func TestPreemptBudget(t *testing.T) {
	build := func(budgetA, doneA int) *Snapshot {
		s := &Snapshot{Now: 100, Pools: []Pool{{Name: "gpu", Policy: PolicyPriority, Preemption: true, Placement: PlaceBinpack}}}
		s.Nodes = []Node{{Name: "n1", Slots: 4, ZeroSlotLimit: 10}}
		s.Projects = []Project{
			{Name: "a", Parent: -1, PreemptBudget: budgetA, Preempted: doneA},
			{Name: "b", Parent: -1},
		}
		s.Jobs = []Job{
			{ID: "a-low", Priority: 80, Weight: 1, Preemptible: true, Slots: 1, MaxRunning: 10, Project: 0},
			{ID: "b-low", Priority: 70, Weight: 1, Preemptible: true, Slots: 1, MaxRunning: 10, Project: 1},
			{ID: "high", Priority: 10, Weight: 1, Slots: 1, Waiting: 3, MaxRunning: 3, Submit: 50, Seq: 1, Project: 1},
		}
		for i, job := range []int{0, 0, 1, 1} {
			s.Allocs = append(s.Allocs, Alloc{Job: job, Nodes: []NodeSlots{{Node: 0, Slots: 1}}, Start: int64(10 * (i + 1))})
		}
		return s
	}
	cases := []struct {
		name         string
		budget, done int
		wantA, wantB int
	}{
		{"no budget: both of a's tasks go first, then b's", 0, 0, 2, 1},
		{"a budget of one preemption an hour", 1, 0, 1, 2},
		{"a spent budget protects a's tasks", 2, 2, 0, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := build(c.budget, c.done)
			plan := quotaPlan(t, s)
			var a, b int
			for _, pe := range plan.Preemptions {
				switch s.Allocs[pe.Alloc].Job {
				case 0:
					a++
				case 1:
					b++
				}
			}
			if a != c.wantA || b != c.wantB {
				t.Fatalf("preempted %d of a's and %d of b's tasks, want %d and %d", a, b, c.wantA, c.wantB)
			}
		})
	}
}

// TestReclaimPastProtectedTask: an over-quota project whose newest task is
// interactive still gives up its older preemptible tasks. A refusal for
// one task must not close the whole project's block of victims.
func TestReclaimPastProtectedTask(t *testing.T) {
	s := quotaSnap(1, 4, "a", 3, "b", 1)
	over := addJob(s, "b-train", 1, 1, 0, false)
	nb := addJob(s, "b-notebook", 1, 1, 0, true)
	addRun(s, over, 0, 1, 10)
	addRun(s, over, 0, 1, 20)
	addRun(s, over, 0, 1, 30)
	addRun(s, nb, 0, 1, 40) // newest, so first in b's block
	addJob(s, "a-train", 0, 1, 2, false)
	plan := quotaPlan(t, s)
	if got := preemptedStarts(s, plan); !slices.Equal(got, []int64{30, 20}) {
		t.Fatalf("preempted tasks started at %v, want b's two newest unattended ones [30 20]", got)
	}
	if held := projectHeld(s, plan); held["b"] != 2 {
		t.Fatalf("b keeps %d slots, want 2", held["b"])
	}
}
