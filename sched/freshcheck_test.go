package sched

import (
	"math/rand/v2"
	"testing"
)

// compareWithFresh plans n random clusters from gen with kept, a
// Scheduler warm across passes, and each pass again with a fresh one that
// off turns a memo off in, six passes a cluster with the plan applied
// (evolve) and, every other pass, tasks ending and jobs coming and going
// with Revs (churn). It fails on the first plan that differs, saying
// that what was kept changed it, and returns count summed over the plans,
// so that the caller can check the memo had something to do.
func compareWithFresh(t *testing.T, rng *rand.Rand, n int, gen func(*rand.Rand) *Snapshot,
	kept *Scheduler, off func(*Scheduler), what string, count func(*Plan) int) int {
	t.Helper()
	var rev uint64
	total := 0
	for c := range n {
		s := gen(rng)
		var prev *Snapshot
		for step := range 6 {
			giveRevs(rng, prev, s, &rev)
			p, err := kept.Schedule(s)
			if err != nil {
				t.Fatalf("case %d step %d: %v", c, step, err)
			}
			plan := clonePlan(p)
			var fresh Scheduler
			off(&fresh)
			want, err := fresh.Schedule(s)
			if err != nil {
				t.Fatal(err)
			}
			if !plansEqual(&plan, want) {
				t.Fatalf("case %d step %d: %s change the plan\nkept:\n%sfresh:\n%ssnapshot:\n%s",
					c, step, what, fmtPlan(s, &plan), fmtPlan(s, want), fmtSnapshot(s))
			}
			total += count(&plan)
			next := cloneSnapshot(s)
			evolve(rng, next, &plan)
			if step%2 == 1 {
				churn(rng, next, step)
			}
			prev, s = s, next
		}
	}
	return total
}
