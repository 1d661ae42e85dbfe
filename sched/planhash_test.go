package sched

import (
	"crypto/sha256"
	"fmt"
	"os"
	"testing"
)

// TestRealPlanHashes prints a hash of every policy's plan on the full and
// half-full snapshots of BenchmarkSchedulePass, cold and warm (a second
// pass of the same Scheduler), then with Revs, so that a performance
// change can show its plans byte-identical: run it before and after and
// compare (every line of a policy and fill must match). It is slow
// (fourteen large snapshots), so it runs only when ALLOT_PLAN_HASH is set:
//
//	ALLOT_PLAN_HASH=1 go test -run TestRealPlanHashes -v ./sched/
func TestRealPlanHashes(t *testing.T) {
	if os.Getenv("ALLOT_PLAN_HASH") == "" {
		t.Skip("set ALLOT_PLAN_HASH=1 to print the plan hashes")
	}
	for _, fill := range []float64{1, 0.5} {
		for _, pol := range realPolicies {
			s := realSnapshot(10_000, 100_000, fill, pol.pool)
			var sc Scheduler
			for _, mode := range []string{"cold", "warm"} {
				p, err := sc.Schedule(s)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("fill=%v policy=%s %s: %x", fill, pol.name, mode, planHash(p))
			}
			// With Revs, the second pass reuses the first's answers
			// (jobmemo.go); its plan must hash the same.
			for i := range s.Jobs {
				s.Jobs[i].Rev = uint64(i + 1)
			}
			for _, mode := range []string{"rev cold", "rev warm"} {
				p, err := sc.Schedule(s)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("fill=%v policy=%s %s: %x", fill, pol.name, mode, planHash(p))
			}
		}
	}
}

// planHash hashes everything a plan says, in its order.
func planHash(p *Plan) []byte {
	h := sha256.New()
	for _, st := range p.Starts {
		fmt.Fprintf(h, "S%d %v %v\n", st.Job, st.Nodes, st.Backfill)
	}
	for _, pr := range p.Preemptions {
		fmt.Fprintf(h, "P%+v\n", pr)
	}
	for _, pe := range p.Pending {
		fmt.Fprintf(h, "W%+v\n", pe)
	}
	for _, m := range p.Moves {
		fmt.Fprintf(h, "M%+v\n", m)
	}
	for _, r := range p.Resizes {
		fmt.Fprintf(h, "R%+v\n", r)
	}
	return h.Sum(nil)[:12]
}
