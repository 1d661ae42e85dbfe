package sched

import (
	"fmt"
	"reflect"
	"testing"
)

// TestVictimIndexChangesNothing runs priority and fair-share passes on
// realistic clusters (full and partly full, mixed node sizes, gangs,
// backfilled tasks, several priorities of victims, jobs over and under
// their share) with and without the victim index and requires identical
// plans, also when the Scheduler is reused.
func TestVictimIndexChangesNothing(t *testing.T) {
	defer func() { victimIndexOff = false }()
	pools := []Pool{
		{Policy: PolicyPriority, Preemption: true},
		{Policy: PolicyPriority, Preemption: true, Backfill: true},
		{Policy: PolicyFairShare, Preemption: true},
		{Policy: PolicyQuota},                  // the gang replay of reclaim
		{Policy: PolicyQuota, Name: "budgets"}, // the same, with preemption budgets
	}
	for _, pool := range pools {
		for _, fill := range []float64{1, 0.9, 0.6} {
			for seed := range 3 {
				s := realSnapshot(300+37*seed, 3000+seed, fill, pool)
				if pool.Name == "budgets" {
					for i := range s.Projects {
						s.Projects[i].PreemptBudget, s.Projects[i].Preempted = 40+i*20, i*5
					}
				}
				name := fmt.Sprintf("%s%s/backfill=%v/fill=%v/seed=%d", pool.Policy, pool.Name, pool.Backfill, fill, seed)
				var plans [2][2]Plan
				for k, off := range []bool{true, false} {
					victimIndexOff = off
					var sc Scheduler
					for rep := range 2 {
						plan, err := sc.Schedule(s)
						if err != nil {
							t.Fatal(err)
						}
						plans[k][rep] = clonePlan(plan)
					}
				}
				if len(plans[0][0].Preemptions) == 0 {
					t.Errorf("%s: no preemptions, the test tests nothing", name)
				}
				for rep := range 2 {
					if !reflect.DeepEqual(plans[0][rep], plans[1][rep]) {
						t.Errorf("%s, pass %d: plans differ with the index", name, rep+1)
					}
				}
			}
		}
	}
}
