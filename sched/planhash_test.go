package sched

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updatePlanHashes rewrites testdata/planhashes.golden (after a change
// that is meant to change plans, reviewed in the diff).
var updatePlanHashes = flag.Bool("update-plan-hashes", false, "rewrite testdata/planhashes.golden")

// TestRealPlanHashes hashes every policy's plan on the full and half-full
// snapshots of BenchmarkSchedulePass, cold and warm (a second pass of the
// same Scheduler), then with Revs, and compares the hashes with
// testdata/planhashes.golden, so that a performance change shows its
// plans byte-identical at full scale. It is slow (fourteen large
// snapshots; minutes under the race detector), so the race run of the
// whole module leaves it out and scripts/test runs it once more without
// the race detector:
//
//	ALLOT_PLAN_HASH=1 go test -run TestRealPlanHashes ./sched/
//	ALLOT_PLAN_HASH=1 go test -run TestRealPlanHashes ./sched/ -update-plan-hashes
func TestRealPlanHashes(t *testing.T) {
	if os.Getenv("ALLOT_PLAN_HASH") == "" {
		t.Skip("scripts/test runs it with ALLOT_PLAN_HASH=1, without the race detector")
	}
	var got strings.Builder
	for _, fill := range []float64{1, 0.5} {
		for _, pol := range realPolicies {
			s := realSnapshot(10_000, 100_000, fill, pol.pool)
			var sc Scheduler
			for _, mode := range []string{"cold", "warm"} {
				p, err := sc.Schedule(s)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&got, "fill=%v policy=%s %s: %x\n", fill, pol.name, mode, planHash(p))
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
				fmt.Fprintf(&got, "fill=%v policy=%s %s: %x\n", fill, pol.name, mode, planHash(p))
			}
		}
	}
	golden := filepath.Join("testdata", "planhashes.golden")
	if *updatePlanHashes {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("plan hashes differ from %s: a plan changed\ngot:\n%s\nwant:\n%s", golden, got.String(), want)
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
		fmt.Fprintf(h, "W%s\n", pendingHashed(pe))
	}
	for _, m := range p.Moves {
		fmt.Fprintf(h, "M%+v\n", m)
	}
	for _, r := range p.Resizes {
		// As %+v printed it before For: For names whom a shrink is
		// for, which the victim and its new size already decide.
		fmt.Fprintf(h, "R{Alloc:%d Nodes:%+v}\n", r.Alloc, r.Nodes)
	}
	return h.Sum(nil)[:12]
}

// pendingHashed is pe as %+v prints it, less its Turn, deliberately: a
// Turn reports the order the pool's policy offered its jobs in, it decides
// nothing, and the golden hashes were taken before the field existed, so
// that leaving it out shows the decisions byte-identical.
func pendingHashed(pe Pending) string {
	s := fmt.Sprintf("%+v", pe)
	turn := fmt.Sprintf(" Turn:%d Nodes:", pe.Turn)
	if strings.Count(s, turn) != 1 {
		panic("planHash: Pending no longer prints Turn just before Nodes: " + s)
	}
	return strings.Replace(s, turn, " Nodes:", 1)
}
