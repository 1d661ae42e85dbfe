package sched

import (
	"slices"
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
		min        int // alice's min slots; 0: not elastic
		preemption bool
		resizes    []string
		bob        Reason
	}{
		{"elastic, preemption: shrinks", 1, true, []string{"alice:p-1:2>p-1:1"}, ReasonCheckpointing},
		{"elastic, no preemption: waits for room", 1, false, nil, ReasonNoCapacity},
		{"not elastic: whole task, waits for room", 0, true, nil, ReasonNoCapacity},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []poolOpt
			if tc.preemption {
				opts = append(opts, withPreemption())
			}
			b := newCluster(t).pool("p", PolicyFairShare, opts...).nodes("p", 1, 2, "").now(100)
			alice := b.job("alice", slots(2), minSlots(tc.min), waiting(0), weight(1), preemptible(), submit(0))
			b.running(alice, start(0), on("p-1", 2))
			bob := b.job("bob", slots(1), waiting(1), weight(3), submit(50))
			s := b.snapshot()
			p := mustSchedule(t, s)
			if got := resizeList(s, &p); !slices.Equal(got, tc.resizes) {
				t.Fatalf("resizes %v, want %v\n%s", got, tc.resizes, fmtPlan(s, &p))
			}
			if len(p.Preemptions) != 0 || len(p.Starts) != 0 {
				t.Fatalf("want no preemption or start\n%s", fmtPlan(s, &p))
			}
			mustPending(t, s, &p, bob, tc.bob)
			if tc.resizes == nil {
				return
			}
			// Once the checkpoint lands bob runs his slot, alice keeps
			// her min, and nothing moves again (no growing back).
			s2, last, _ := settle(t, s, 10)
			held := map[int]int{}
			for _, al := range s2.Allocs {
				held[al.Job] += Slots(al.Nodes)
			}
			if held[alice] != 1 || held[bob] != 1 {
				t.Fatalf("settled holdings alice=%d bob=%d, want 1 and 1\n%s", held[alice], held[bob], fmtPlan(s2, &last))
			}
		})
	}
}
