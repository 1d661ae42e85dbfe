package sched

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrderMemoSorts checks orderMemo.sort against slices.SortFunc on
// random lists over passes: items come and go, keys move, the pairing
// with the previous pass is partly wrong, and some comparators have ties
// (which the repair must refuse, as a sort breaks them by position).
func TestOrderMemoSorts(t *testing.T) {
	cases := []struct {
		name     string
		keySpace int // keys drawn below this; small spaces give ties
		moved    int // one key in moved changes per pass
		wrong    int // one pairing in wrong is wrong
	}{
		{name: "distinct keys, right pairs", keySpace: 1 << 30, moved: 50, wrong: 0},
		{name: "distinct keys, wrong pairs", keySpace: 1 << 30, moved: 50, wrong: 7},
		{name: "many moves", keySpace: 1 << 30, moved: 2, wrong: 0},
		{name: "ties", keySpace: 40, moved: 20, wrong: 0},
		{name: "ties, wrong pairs", keySpace: 40, moved: 20, wrong: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.keySpace+tc.moved+tc.wrong)))
			var om orderMemo
			repaired := 0
			for c := range 200 {
				om = orderMemo{}
				key := make([]int, 0, 300)
				for range 1 + rng.IntN(300) {
					key = append(key, rng.IntN(tc.keySpace))
				}
				var newOf []int32
				for pass := range 6 {
					om.begin(1)
					items := make([]int32, len(key))
					for i := range items {
						items[i] = int32(i)
					}
					cmp := func(a, b int32) int {
						if key[a] != key[b] {
							return key[a] - key[b]
						}
						return 0
					}
					want := slices.Clone(items)
					slices.SortFunc(want, cmp)
					before := om.repaired
					om.sort(0, items, len(key), newOf, cmp, nil)
					if !slices.Equal(items, want) {
						t.Fatalf("case %d pass %d: got %v, want %v", c, pass, items, want)
					}
					repaired += om.repaired - before
					om.end()
					key, newOf = nextKeys(rng, key, tc.moved, tc.wrong, tc.keySpace)
				}
			}
			if tc.keySpace > 1000 && repaired == 0 {
				t.Fatal("no list was repaired: the test proves nothing")
			}
		})
	}
}

// nextKeys removes and adds items and moves keys, and returns the new
// keys with each old item's new index (wrong now and then).
func nextKeys(rng *rand.Rand, key []int, moved, wrong, space int) ([]int, []int32) {
	var next []int
	newOf := make([]int32, len(key))
	for i, k := range key {
		newOf[i] = -1
		if rng.IntN(20) == 0 {
			continue
		}
		if rng.IntN(moved) == 0 {
			k = rng.IntN(space)
		}
		newOf[i] = int32(len(next))
		next = append(next, k)
	}
	for range rng.IntN(5) {
		next = append(next, rng.IntN(space))
	}
	if wrong > 0 && len(next) > 0 {
		for i := range newOf {
			if newOf[i] >= 0 && rng.IntN(wrong) == 0 {
				newOf[i] = int32(rng.IntN(len(next))) // may pair two old items with one
			}
		}
	}
	return next, newOf
}

// TestKeptOrdersPlanAsFresh checks that a Scheduler repairing its kept
// victim lists and multifactor queues (sortmemo.go) plans exactly as a
// fresh one: random clusters of every policy go through passes in which
// the plan applies, tasks end, jobs come and go with Revs as a caller
// gives them, and now and then the allocations are listed in another
// order, so that they are paired wrongly with the previous pass's.
func TestKeptOrdersPlanAsFresh(t *testing.T) {
	defer func(n int) { memoMinJobs = n }(memoMinJobs)
	memoMinJobs = 1
	rng := rand.New(rand.NewPCG(23, 5))
	var reused Scheduler
	var rev uint64
	for c := range 400 {
		s := randSnapshot(rng, defaultGen)
		if rng.IntN(3) == 0 {
			quotaize(rng, s)
		}
		var prev *Snapshot
		for step := range 8 {
			giveRevs(rng, prev, s, &rev)
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
			evolve(rng, next, &plan)
			churn(rng, next, step)
			if rng.IntN(4) == 0 && len(next.Allocs) > 1 {
				i, k := rng.IntN(len(next.Allocs)), rng.IntN(len(next.Allocs))
				next.Allocs[i], next.Allocs[k] = next.Allocs[k], next.Allocs[i]
			}
			prev, s = s, next
		}
	}
	if reused.orders.repaired == 0 {
		t.Fatal("no kept list was repaired: the test proves nothing")
	}
	t.Logf("%d lists repaired", reused.orders.repaired)
}
