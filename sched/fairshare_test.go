package sched

import (
	"slices"
	"testing"
)

func TestFairShare(t *testing.T) {
	counts := func(p *Plan, jobs ...int) []int {
		out := make([]int, len(jobs))
		for i, j := range jobs {
			out[i] = len(startsOf(p, j))
		}
		return out
	}
	tests := []struct {
		name       string
		demands    [2]int
		weights    [2]float64
		nodes      int
		nodeSlots  int
		want       []int
		wantReason [2]Reason
	}{
		{"demands 10 and 30 on 8 slots give 2 and 6", [2]int{10, 30}, [2]float64{1, 1}, 1, 8, []int{2, 6},
			[2]Reason{ReasonAboveShare, ReasonAboveShare}},
		{"weights 3 and 1 give 4 and 4", [2]int{10, 30}, [2]float64{3, 1}, 1, 8, []int{4, 4},
			[2]Reason{ReasonAboveShare, ReasonAboveShare}},
		{"on eight one-slot nodes too", [2]int{10, 30}, [2]float64{1, 1}, 8, 1, []int{2, 6},
			[2]Reason{ReasonAboveShare, ReasonAboveShare}},
		{"a share is capped at demand and the rest goes to the other", [2]int{2, 30}, [2]float64{5, 1}, 1, 8,
			[]int{2, 6}, [2]Reason{0, ReasonAboveShare}},
		{"everything fits", [2]int{3, 4}, [2]float64{1, 1}, 1, 8, []int{3, 4}, [2]Reason{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t).pool("p", PolicyFairShare).nodes("p", tc.nodes, tc.nodeSlots, "")
			a := b.job("a", waiting(tc.demands[0]), weight(tc.weights[0]), preemptible(), submit(0))
			c := b.job("b", waiting(tc.demands[1]), weight(tc.weights[1]), preemptible(), submit(1))
			s := b.snapshot()
			p := mustSchedule(t, s)
			if got := counts(&p, a, c); !slices.Equal(got, tc.want) {
				t.Fatalf("starts %v, want %v\n%s", got, tc.want, fmtPlan(s, &p))
			}
			for i, j := range []int{a, c} {
				if tc.wantReason[i] == 0 {
					mustNotPending(t, s, &p, j)
				} else {
					mustPending(t, s, &p, j, tc.wantReason[i])
				}
			}
		})
	}
}

// TestFairShareGivesBack: a job holding the whole pool gives back
// preemptible tasks, newest first, only down to its share.
func TestFairShareGivesBack(t *testing.T) {
	tests := []struct {
		name       string
		weightA    float64
		preemption bool
		wantPre    int // tasks of a preempted
	}{
		{"down to 2 of 8 against demand 30", 1, true, 6},
		{"down to 4 of 8 with weight 3", 3, true, 4},
		{"nothing without preemption", 1, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []poolOpt
			if tc.preemption {
				opts = append(opts, withPreemption())
			}
			b := newCluster(t).pool("p", PolicyFairShare, opts...).nodes("p", 1, 8, "").now(100)
			a := b.job("a", waiting(2), weight(tc.weightA), preemptible(), submit(0))
			allocs := b.fill(a, "p-1", 8, 0)
			c := b.job("b", waiting(30), submit(50))
			s := b.snapshot()
			p := mustSchedule(t, s)
			got := preempted(&p)
			if len(got) != tc.wantPre {
				t.Fatalf("preempted %d tasks, want %d\n%s", len(got), tc.wantPre, fmtPlan(s, &p))
			}
			// Newest first: the last wantPre allocations.
			if !slices.Equal(got, allocs[8-tc.wantPre:]) {
				t.Fatalf("preempted %v, want the newest %v", got, allocs[8-tc.wantPre:])
			}
			for _, pr := range p.Preemptions {
				if pr.For != c {
					t.Fatalf("preemption for %d, want b", pr.For)
				}
			}
			if len(p.Starts) != 0 {
				t.Fatalf("starts on a full node:\n%s", fmtPlan(s, &p))
			}
			mustPending(t, s, &p, a, ReasonAboveShare)
			if tc.wantPre == 0 {
				// b is below its share but may not preempt.
				mustPending(t, s, &p, c, ReasonNoCapacity)
				return
			}
			// b waits for its victims' checkpoints and, for its other
			// tasks, holds its share: either reason is fair.
			if pe, ok := pendingOf(&p, c); !ok || (pe.Reason != ReasonCheckpointing && pe.Reason != ReasonAboveShare) {
				t.Fatalf("b pending %+v, want checkpointing or above_share", pe)
			}
			// After the checkpoints b runs its share and nothing moves again.
			s2, last, _ := settle(t, s, 10)
			held := map[int]int{}
			for _, al := range s2.Allocs {
				held[al.Job] += Slots(al.Nodes)
			}
			if held[a] != 8-tc.wantPre || held[c] != tc.wantPre {
				t.Fatalf("settled holdings a=%d b=%d, want %d and %d", held[a], held[c], 8-tc.wantPre, tc.wantPre)
			}
			mustPending(t, s2, &last, a, ReasonAboveShare)
		})
	}
}

// TestFairShareVictimFloor: the victim's share is the floor even when the
// preempting job stays below its own share. On 8 slots a (5 running, demand
// 10), c (3 running, not preemptible, demand 3) and b (demand 30) get shares
// 2, 1 and 5: b preempts only 3 of a's tasks and stays at 3 of its 5.
func TestFairShareVictimFloor(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFairShare, withPreemption()).nodes("p", 1, 8, "").now(100)
	a := b.job("a", waiting(5), preemptible(), submit(0))
	allocs := b.fill(a, "p-1", 5, 0)
	c := b.job("c", waiting(0), maxRunning(3), submit(1))
	b.fill(c, "p-1", 3, 10)
	bj := b.job("b", waiting(30), submit(2))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if got := preempted(&p); !slices.Equal(got, allocs[2:]) {
		t.Fatalf("preempted %v, want a's three newest %v\n%s", got, allocs[2:], fmtPlan(s, &p))
	}
	s2, last, _ := settle(t, s, 10)
	held := map[int]int{}
	for _, al := range s2.Allocs {
		held[al.Job] += Slots(al.Nodes)
	}
	if held[a] != 2 || held[c] != 3 || held[bj] != 3 {
		t.Fatalf("settled holdings a=%d c=%d b=%d, want 2, 3, 3", held[a], held[c], held[bj])
	}
	// b is below its share but nothing more may be taken.
	mustPending(t, s2, &last, bj, ReasonNoCapacity)
}

// TestFairShareNonPreemptible: a job above its share whose tasks are not
// preemptible keeps them.
func TestFairShareNonPreemptible(t *testing.T) {
	b := newCluster(t).pool("p", PolicyFairShare, withPreemption()).nodes("p", 1, 8, "").now(100)
	a := b.job("a", waiting(2), submit(0))
	b.fill(a, "p-1", 8, 0)
	c := b.job("b", waiting(8), preemptible(), submit(50))
	s := b.snapshot()
	p := mustSchedule(t, s)
	if len(p.Preemptions) != 0 {
		t.Fatalf("preempted a non-preemptible task:\n%s", fmtPlan(s, &p))
	}
	mustPending(t, s, &p, c, ReasonNoCapacity)
}
