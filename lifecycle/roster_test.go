package lifecycle

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sched/allot/sched"
)

// TestRosterMatchesAList drives the Roster with random additions, finishes
// (oldest first, as under FCFS, or anywhere) and compactions, and checks it
// against a plain slice: same jobs in the same order, entries that follow
// their jobs, indices that find them, and removed records reported once.
func TestRosterMatchesAList(t *testing.T) {
	for _, oldestFirst := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(7, 9))
		var r Roster
		var model []int32
		alive := map[int32]bool{}
		gone := map[int32]int{}
		next := int32(0)
		for step := range 20000 {
			switch op := rng.IntN(10); {
			case op < 5 || len(model) == 0:
				r.Add(next, sched.Job{Seq: int64(next)})
				model = append(model, next)
				alive[next] = true
				next++
			case op < 9:
				k := rng.IntN(len(model))
				if oldestFirst {
					k = rng.IntN(min(len(model), 3))
				}
				ji := model[k]
				if alive[ji] {
					alive[ji] = false
					r.Finished(ji)
				}
			default:
				r.Compact(func(ji int32) bool { return alive[ji] }, func(ji int32) { gone[ji]++ })
				model = slices.DeleteFunc(model, func(ji int32) bool { return !alive[ji] })
				if !slices.Equal(r.List(), model) {
					t.Fatalf("step %d: Roster %v, want %v", step, r.List(), model)
				}
				for i, ji := range model {
					if r.Index(ji) != i || r.Entries()[i].Seq != int64(ji) || r.Entry(ji).Seq != int64(ji) {
						t.Fatalf("step %d: job %d at index %d, entry %+v", step, ji, r.Index(ji), r.Entries()[i])
					}
				}
			}
		}
		for ji, n := range gone {
			if n != 1 || alive[ji] {
				t.Fatalf("job %d reported gone %d times (alive %v)", ji, n, alive[ji])
			}
		}
		if len(r.ids) > 4*len(model)+256 && len(r.ids) > 1024 {
			t.Errorf("buffers of %d for %d live jobs: they should stay near the live size", len(r.ids), len(model))
		}
	}
}
