package master

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

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
