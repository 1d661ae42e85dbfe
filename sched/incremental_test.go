package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIncrementalIndex checks that a Scheduler reusing its node index
// across passes (re-indexing only nodes whose allocations changed) plans
// exactly as a fresh one. Each random cluster goes through a sequence of
// snapshots with the same nodes and changing allocations: plan starts
// become allocations, allocations end, and victims begin to drain.
func TestIncrementalIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var reused Scheduler
	changed := 0
	for c := range 600 {
		s := randSnapshot(rng, defaultGen)
		// Half the cases promise an unchanged node list by its version
		// (a new one per case, since each case has other nodes).
		if c%2 == 0 {
			s.NodesVersion = uint64(c + 1)
		}
		for step := range 6 {
			p, err := reused.Schedule(s)
			if err != nil {
				t.Fatalf("case %d step %d: %v", c, step, err)
			}
			plan := clonePlan(p)
			fresh := mustSchedule(t, s)
			if !plansEqual(&plan, &fresh) {
				t.Fatalf("case %d step %d: reused Scheduler differs from a fresh one\nreused:\n%sfresh:\n%ssnapshot:\n%s",
					c, step, fmtPlan(s, &plan), fmtPlan(s, &fresh), fmtSnapshot(s))
			}
			next := cloneSnapshot(s)
			if evolve(rng, next, &plan) {
				changed++
			}
			s = next
		}
	}
	if changed == 0 {
		t.Fatal("no step changed the allocations: the test proves nothing")
	}
}

// evolve turns s into the next snapshot of the same cluster: some
// allocations end, then the plan applies: its preemptions drain, its
// starts run, and its moves and resizes leave old placements draining. It
// reports whether any allocation changed.
func evolve(rng *rand.Rand, s *Snapshot, p *Plan) bool {
	changed := !quiet(p)
	ended := make([]bool, len(s.Allocs))
	for i := range ended {
		ended[i] = rng.IntN(4) == 0
		changed = changed || ended[i]
	}
	next := applyPlan(s, p)
	kept := next.Allocs[:0]
	for i, a := range next.Allocs {
		if i < len(ended) && ended[i] {
			continue
		}
		kept = append(kept, a)
	}
	next.Allocs = kept
	next.Now += int64(rng.IntN(30))
	*s = *next
	return changed
}

// TestDrainFreeCounted checks each group's index of draining nodes with
// free slots (dfree, dcounts, drainFree; freeOnDraining reads it) against
// the nodes, after passes of a reused Scheduler over snapshots whose
// preemptions drain: in the indexed snapshot and in the state the pass
// left.
func TestDrainFreeCounted(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 29))
	var sc Scheduler
	for c := range 300 {
		s := randSnapshot(rng, defaultGen)
		for step := range 6 {
			p, err := sc.Schedule(s)
			if err != nil {
				t.Fatalf("case %d step %d: %v", c, step, err)
			}
			for _, st := range []*state{&sc.base, &sc.st} {
				for gi := range st.groups {
					if err := checkDrainIndex(st, &st.groups[gi]); err != "" {
						t.Fatalf("case %d step %d group %d: %s", c, step, gi, err)
					}
				}
			}
			plan := clonePlan(p)
			next := cloneSnapshot(s)
			evolve(rng, next, &plan)
			s = next
		}
	}
}

// checkDrainIndex compares g's dfree with its nodes' counts.
func checkDrainIndex(st *state, g *group) string {
	var total int32
	counts := make([]int32, len(g.dcounts))
	for pos, node := range g.nodes {
		f := st.free[node]
		in := g.draining.has(int32(pos)) && f > 0
		for k := range g.dfree {
			if g.dfree[k].has(int32(pos)) != (in && int32(k) == f) {
				return fmt.Sprintf("node %d (free %d, drain %d): dfree[%d] wrong", node, f, st.drain[node], k)
			}
		}
		if in {
			total++
			counts[f]++
		}
	}
	if total != g.drainFree || !slices.Equal(counts, g.dcounts) {
		return fmt.Sprintf("drainFree %d dcounts %v, counted %d %v", g.drainFree, g.dcounts, total, counts)
	}
	return ""
}
