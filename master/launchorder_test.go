package master

import (
	"slices"
	"testing"

	"github.com/allot-sched/allot/lifecycle"
	"github.com/allot-sched/allot/sched"
)

// TestOrderAllocsDrain: a snapshot lists its allocations as the
// simulator's running list does (lifecycle.Tasks): by launch, a task a
// move or resize re-placed keeping its place for its new placement, and
// the placement that drains listed as launched when the move was
// applied, its task's preempted stamp, after what launched before the
// move and before what launched after it.
func TestOrderAllocsDrain(t *testing.T) {
	a := &mtask{launch: 1}
	b := &mtask{launch: 2, preempted: 4} // moved after c launched
	b.Replacement.Reserve(lifecycle.Move, 60, 0, "")
	c := &mtask{launch: 3}
	d := &mtask{launch: 5}
	for _, tc := range []struct {
		name   string
		listed []allocRef
	}{
		{"by job", []allocRef{{t: a}, {t: b, next: true}, {t: b}, {t: c}, {t: d}}},
		{"reversed", []allocRef{{t: d}, {t: c}, {t: b}, {t: b, next: true}, {t: a}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &planner{}
			for i, r := range tc.listed {
				pl.snap.Allocs = append(pl.snap.Allocs, sched.Alloc{Job: i})
				pl.view.allocs = append(pl.view.allocs, r)
			}
			pl.orderAllocs()
			want := []allocRef{{t: a}, {t: b, next: true}, {t: c}, {t: b}, {t: d}}
			if !slices.Equal(pl.view.allocs, want) {
				t.Fatalf("ordered %v, want a, b's new placement, c, b's draining part, d", pl.view.allocs)
			}
			for i, al := range pl.snap.Allocs {
				if tc.listed[al.Job] != pl.view.allocs[i] {
					t.Fatalf("allocation %d is listed %d's, its reference %v: the two lists differ", i, al.Job, pl.view.allocs[i])
				}
			}
		})
	}
}

// BenchmarkOrderAllocs sorts 10,000 allocations listed by job into launch
// order, the reverse, as a snapshot of a busy cluster may need each pass.
func BenchmarkOrderAllocs(b *testing.B) {
	const n = 10000
	pl := &planner{}
	tasks := make([]*mtask, n)
	for i := range tasks {
		tasks[i] = &mtask{launch: int64(n - i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		pl.snap.Allocs, pl.view.allocs = pl.snap.Allocs[:0], pl.view.allocs[:0]
		for i, t := range tasks {
			pl.snap.Allocs = append(pl.snap.Allocs, sched.Alloc{Job: i})
			pl.view.allocs = append(pl.view.allocs, allocRef{t: t})
		}
		pl.orderAllocs()
	}
}
