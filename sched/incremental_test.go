package sched

import (
	"math/rand/v2"
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

// evolve turns s into the next snapshot of the same cluster: the plan's
// preemptions drain, its starts run, and some allocations end. It reports
// whether any allocation changed.
func evolve(rng *rand.Rand, s *Snapshot, p *Plan) bool {
	changed := false
	for _, pe := range p.Preemptions {
		s.Allocs[pe.Alloc].Preempting = true
		changed = true
	}
	kept := s.Allocs[:0]
	for _, a := range s.Allocs {
		if rng.IntN(4) == 0 {
			changed = true
			continue
		}
		kept = append(kept, a)
	}
	s.Allocs = kept
	for _, st := range p.Starts {
		s.Allocs = append(s.Allocs, Alloc{Job: st.Job, Nodes: append([]NodeSlots(nil), st.Nodes...), Start: s.Now})
		if s.Jobs[st.Job].Waiting > 0 {
			s.Jobs[st.Job].Waiting--
		}
		changed = true
	}
	s.Now += int64(rng.IntN(30))
	return changed
}
