package sched

import (
	"fmt"
	"reflect"
	"testing"
)

// TestVictimIndexChangesNothing runs priority passes on realistic
// clusters (full and partly full, mixed node sizes, gangs, backfilled
// tasks, several priorities of victims) with and without the victim
// index and requires identical plans, also when the Scheduler is reused.
func TestVictimIndexChangesNothing(t *testing.T) {
	defer func() { victimIndexOff = false }()
	for _, backfill := range []bool{false, true} {
		for _, fill := range []float64{1, 0.9, 0.6} {
			for seed := range 3 {
				pool := Pool{Policy: PolicyPriority, Preemption: true, Backfill: backfill}
				s := realSnapshot(300+37*seed, 3000+seed, fill, pool)
				name := fmt.Sprintf("backfill=%v/fill=%v/seed=%d", backfill, fill, seed)
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
