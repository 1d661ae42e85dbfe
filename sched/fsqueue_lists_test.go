package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestShareListsAsHeap checks the allocation queue with its lists of jobs
// at 0 (fsqueue_lists.go) against the plain heap: on random jobs (most
// holding nothing, shares and weights varied, submissions out of index
// order), both must give the same top after every step of a random run of
// placements, failures (removal) and evictions (counts moving down, of
// jobs in the heap or listed).
func TestShareListsAsHeap(t *testing.T) {
	cases := []struct {
		name   string
		zeroes int // one job in zeroes holds something
	}{
		{name: "mostly at zero", zeroes: 8},
		{name: "half at zero", zeroes: 2},
		{name: "all at zero", zeroes: 1 << 30},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, uint64(tc.zeroes)))
			listedSteps := 0
			for c := range 2000 {
				n := 1 + rng.IntN(60)
				s := &Snapshot{}
				num, share, demand := make([]int32, n), make([]int32, n), make([]int32, n)
				for i := range n {
					s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("j%d", i), Weight: []float64{1, 0.5, 2, 3.3}[rng.IntN(4)],
						Submit: int64(rng.IntN(1000)), Seq: int64(i)})
					demand[i] = int32(1 + rng.IntN(16))
					share[i] = int32(rng.IntN(int(demand[i]) + 1))
					if rng.IntN(tc.zeroes) == 0 {
						num[i] = int32(1 + rng.IntN(12))
					}
				}
				order := make([]int32, n)
				for i := range order {
					order[i] = int32(i)
				}
				slices.SortFunc(order, func(a, b int32) int { return lessFIFO(&s.Jobs[a], &s.Jobs[b]) })
				var ql, qh fsQueue
				numL, numH := slices.Clone(num), slices.Clone(num)
				for k, q := range []*fsQueue{&ql, &qh} {
					q.reset(s, [][]int32{numL, numH}[k], demand)
					q.share = share
					q.ensurePos(n)
					for i := range n {
						q.pos[i] = posWanted
					}
					q.build(order, order, k == 0)
				}
				for step := 0; qh.Len() > 0; step++ {
					if ql.Len() != qh.Len() {
						t.Fatalf("case %d step %d: %d queued with lists, %d in the heap", c, step, ql.Len(), qh.Len())
					}
					top := qh.top()
					if got := ql.top(); got != top {
						t.Fatalf("case %d step %d: top %d with lists, %d in the heap", c, step, got, top)
					}
					listedSteps += b2i(ql.listed > 0)
					switch op := rng.IntN(3); {
					case op == 0:
						ql.remove(top)
						qh.remove(top)
					case op == 1:
						d := int32(1 + rng.IntN(4))
						numL[top] += d
						numH[top] += d
						ql.moved(top, d)
						qh.moved(top, d)
					default:
						j := int32(rng.IntN(n))
						if qh.pos[j] < 0 || numH[j] == 0 {
							continue
						}
						d := -int32(1 + rng.IntN(int(numH[j])))
						numL[j] += d
						numH[j] += d
						ql.moved(j, d)
						qh.moved(j, d)
					}
				}
			}
			if listedSteps == 0 {
				t.Fatal("no step had listed jobs: the test proves nothing")
			}
		})
	}
}
