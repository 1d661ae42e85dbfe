package sched

import (
	"slices"
	"testing"
)

// TestFairShares: FairShares gives each job of a fair_share pool the
// share a pass computes, in whole tasks: on 2 slots alice's two 1-slot
// trials, submitted first, take both, and bob's 2-slot task gets none
// (what is left after alice's first trial is too small for it); with
// 1-slot tasks each gets 1; an elastic job's share counts in min_slots
// steps. Jobs of other pools get 0, whatever their policy.
func TestFairShares(t *testing.T) {
	tests := []struct {
		name             string
		bobSlots         int
		aliceMin         int // alice as one elastic task of 2 slots
		alice, bob, fifo int
	}{
		{"a 2-slot task gets no share next to two 1-slot trials", 2, 0, 2, 0, 0},
		{"1-slot tasks share evenly", 1, 0, 1, 1, 0},
		{"an elastic job's share counts from min_slots", 1, 1, 1, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("f", PolicyFairShare, withPreemption()).nodes("f", 1, 2, "").
				pool("q", PolicyFIFO).nodes("q", 1, 2, "").now(100)
			var alice int
			if tc.aliceMin > 0 {
				alice = b.job("alice", inPool("f"), slots(2), minSlots(tc.aliceMin), waiting(0), preemptible(), submit(0))
				b.running(alice, start(0), on("f-1", 2))
			} else {
				alice = b.job("alice", inPool("f"), slots(1), waiting(0), preemptible(), submit(0))
				b.running(alice, start(0), on("f-1", 1))
				b.running(alice, start(0), on("f-1", 1))
			}
			bob := b.job("bob", inPool("f"), slots(tc.bobSlots), waiting(1), submit(50))
			fifo := b.job("fifo", inPool("q"), slots(2), waiting(1), submit(10))
			s := b.snapshot()
			got, err := FairShares(s)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, len(s.Jobs))
			want[alice], want[bob], want[fifo] = tc.alice, tc.bob, tc.fifo
			if !slices.Equal(got, want) {
				t.Fatalf("shares %v, want %v", got, want)
			}
		})
	}
}
