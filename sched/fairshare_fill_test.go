package sched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWaterFillFirstRound checks waterFill, which hands out first tasks
// in one walk in submission order (firstRound), against the plain heap
// fill it replaces, on random jobs: demands of one or several tasks,
// tasks of several sizes, weights, capacities short of and beyond the
// demand, jobs listed out of submission order, ties on submission (the
// walk must step aside) and infinite weights.
func TestWaterFillFirstRound(t *testing.T) {
	cases := []struct {
		name    string
		ties    bool
		infW    bool
		unorder bool
	}{
		{name: "in order"},
		{name: "out of order", unorder: true},
		{name: "submission ties", ties: true},
		{name: "infinite weight", infW: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(len(tc.name))))
			firstRounds := 0
			for c := range 3000 {
				s := &Snapshot{Pools: []Pool{{Name: "p", Policy: PolicyFairShare}}}
				n := 1 + rng.IntN(40)
				for i := range n {
					w := []float64{1, 1, 0.5, 2, 3.7, 1e-3}[rng.IntN(6)]
					if tc.infW && rng.IntN(10) == 0 {
						w = math.Inf(1)
					}
					sub, id := int64(i), fmt.Sprintf("j%d", i)
					if tc.ties {
						sub, id = int64(rng.IntN(4)), "same"
					}
					s.Jobs = append(s.Jobs, Job{ID: id, Slots: []int{1, 1, 2, 4, 8}[rng.IntN(5)],
						Weight: w, Submit: sub, Seq: sub})
				}
				if tc.unorder {
					rng.Shuffle(n, func(i, k int) { s.Jobs[i], s.Jobs[k] = s.Jobs[k], s.Jobs[i] })
				}
				demand := make([]int32, n)
				jobs := make([]int32, n)
				total := int32(0)
				for i := range n {
					demand[i] = int32(rng.IntN(4) * s.Jobs[i].Slots)
					jobs[i] = int32(i)
					total += demand[i]
				}
				capacity := int32(rng.IntN(int(total) + 10))
				var sc Scheduler
				p := &pass{sc: &sc, s: s}
				f := &sc.fs
				f.share, f.demand = make([]int32, n), slices.Clone(demand)
				f.waterFill(p, 0, jobs, capacity)
				got := slices.Clone(f.share)
				var probe Scheduler
				probe.fs.share, probe.fs.demand = make([]int32, n), slices.Clone(demand)
				if _, ok := probe.fs.firstRound(&pass{sc: &probe, s: s}, 0, jobs, capacity); ok {
					firstRounds++
				}
				want := heapFill(s, demand, jobs, capacity)
				if !slices.Equal(got, want) {
					t.Fatalf("case %d: shares %v, the heap gives %v (demand %v, capacity %d)", c, got, want, demand, capacity)
				}
			}
			if firstRounds == 0 && !tc.ties {
				t.Fatal("no fill went through the first round")
			}
			t.Logf("%d fills went through the first round", firstRounds)
		})
	}
}

// heapFill is waterFill as it was before the first round: every job with
// a demand in the heap from the start.
func heapFill(s *Snapshot, demand []int32, jobs []int32, capacity int32) []int32 {
	share := make([]int32, len(demand))
	var q fsQueue
	q.reset(s, share, demand)
	for _, j := range jobs {
		if demand[j] > 0 && s.Jobs[j].Weight > 0 {
			q.push(j)
		}
	}
	q.init()
	left := capacity
	for q.Len() > 0 {
		j := q.top()
		step := int32(s.Jobs[j].Slots)
		if share[j]+step > demand[j] || step > left {
			q.popTop()
			continue
		}
		share[j] += step
		q.items[0].num += step
		left -= step
		q.fixTop()
	}
	return share
}
