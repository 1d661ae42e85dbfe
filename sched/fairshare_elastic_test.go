package sched

import (
	"slices"
	"strings"
	"testing"
)

// TestFairShareElasticGivesBack: on 2 slots alice's elastic job (slots 2,
// min 1) runs one task at full size when bob (weight 3) submits a 1-slot
// task. alice's share counts from her min_slots steps, so bob is entitled
// to a slot; with preemption her grown task shrinks to give it back
// (a resize, not an eviction), and without it bob waits for room, never
// told that he, holding nothing, holds his fair share.
func TestFairShareElasticGivesBack(t *testing.T) {
	tests := []struct {
		name       string
		gpus       int // the node's, all alice's
		min        int // alice's min slots; 0: not elastic
		preemption bool
		resizes    []string
		bob        Reason
		alice      int // alice's slots once settled
		bobSlots   int
	}{
		{"elastic, preemption: shrinks", 2, 1, true, []string{"alice:p-1:2>p-1:1"}, ReasonCheckpointing, 1, 1},
		{"elastic, no preemption: waits for room", 2, 1, false, nil, ReasonNoCapacity, 2, 1},
		{"not elastic: whole task, waits for room", 2, 0, true, nil, ReasonNoCapacity, 2, 1},
		// Shares 3 and 1: alice gives back one slot, not half her task.
		{"never below the victim's share", 4, 1, true, []string{"alice:p-1:4>p-1:3"}, ReasonCheckpointing, 3, 1},
		// min 4 of 4: nothing to give back.
		{"never below min_slots", 4, 4, true, nil, ReasonNoCapacity, 4, 1},
		// Shares 2 and 6: alice gives back the 6 bob needs at once.
		{"gives back what the waiting task lacks", 8, 1, true, []string{"alice:p-1:8>p-1:2"}, ReasonCheckpointing, 2, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []poolOpt
			if tc.preemption {
				opts = append(opts, withPreemption())
			}
			b := newCluster(t).pool("p", PolicyFairShare, opts...).nodes("p", 1, tc.gpus, "").now(100)
			alice := b.job("alice", slots(tc.gpus), minSlots(tc.min), waiting(0), weight(1), preemptible(), submit(0))
			b.running(alice, start(0), on("p-1", tc.gpus))
			bob := b.job("bob", slots(tc.bobSlots), waiting(1), weight(3), submit(50))
			s := b.snapshot()
			checkShrink(t, s, tc.resizes, bob, tc.bob, alice, tc.alice, tc.bobSlots)
		})
	}
}

// TestFairShareShrinkChargesBudget: a shrink for another job counts
// against the shrunk task's project's preemption budget, as a
// preemption does, within the pass as well: two of alice's grown elastic
// tasks (2 slots, min 1, one per node) are above their share while two of
// bob's 1-slot jobs wait, and her project's budget says how many shrink.
func TestFairShareShrinkChargesBudget(t *testing.T) {
	tests := []struct {
		name          string
		budget, spent int
		resizes       int
	}{
		{"no budget: both shrink", 0, 0, 2},
		{"budget of two: both shrink", 2, 0, 2},
		{"budget of one: one shrinks", 1, 0, 1},
		{"budget spent: none shrinks", 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFairShare, withPreemption()).nodes("p", 2, 2, "").now(100)
			a1 := b.job("alice-1", slots(2), minSlots(1), waiting(0), weight(1), preemptible(), submit(0), project(0))
			a2 := b.job("alice-2", slots(2), minSlots(1), waiting(0), weight(1), preemptible(), submit(1), project(0))
			b.running(a1, start(0), on("p-1", 2))
			b.running(a2, start(0), on("p-2", 2))
			b.job("bob-1", slots(1), waiting(1), weight(3), submit(50), project(1))
			b.job("bob-2", slots(1), waiting(1), weight(3), submit(51), project(1))
			s := b.snapshot()
			s.Projects = []Project{{Name: "team", Parent: -1, PreemptBudget: tc.budget, Preempted: tc.spent}, {Name: "other", Parent: -1}}
			p := mustSchedule(t, s)
			if len(p.Resizes) != tc.resizes {
				t.Fatalf("%d resizes, want %d\n%s", len(p.Resizes), tc.resizes, fmtPlan(s, &p))
			}
			for _, r := range p.Resizes {
				if r.For < 0 || !strings.HasPrefix(s.Jobs[r.For].ID, "bob") {
					t.Fatalf("resize %+v names no waiting job of bob's as the one it gives back to\n%s", r, fmtPlan(s, &p))
				}
			}
		})
	}
}

// checkShrink checks a pass whose only changes are the shrinks resizes
// (nil: none) for job waiter, pending with reason; then, once the
// checkpoints land and the passes settle, that victim holds vSlots and
// waiter wSlots, and nothing moves again (no growing back).
func checkShrink(t *testing.T, s *Snapshot, resizes []string, waiter int, reason Reason, victim, vSlots, wSlots int) {
	t.Helper()
	p := mustSchedule(t, s)
	if got := resizeList(s, &p); !slices.Equal(got, resizes) {
		t.Fatalf("resizes %v, want %v\n%s", got, resizes, fmtPlan(s, &p))
	}
	if len(p.Preemptions) != 0 || len(p.Starts) != 0 {
		t.Fatalf("want no preemption or start\n%s", fmtPlan(s, &p))
	}
	mustPending(t, s, &p, waiter, reason)
	if resizes == nil {
		return
	}
	s2, last, _ := settle(t, s, 10)
	held := map[int]int{}
	for _, al := range s2.Allocs {
		held[al.Job] += Slots(al.Nodes)
	}
	if held[victim] != vSlots || held[waiter] != wSlots {
		t.Fatalf("settled holdings %s=%d %s=%d, want %d and %d\n%s", s.Jobs[victim].ID, held[victim], s.Jobs[waiter].ID, held[waiter],
			vSlots, wSlots, fmtPlan(s2, &last))
	}
}
