package master

import (
	"testing"

	"github.com/allot-sched/allot/sched"
)

// BenchmarkOrderAllocs sorts 10,000 allocations listed by job into launch
// order, the reverse, as a snapshot of a busy cluster may need each pass.
func BenchmarkOrderAllocs(b *testing.B) {
	const n = 10000
	m := &Master{}
	tasks := make([]*mtask, n)
	for i := range tasks {
		tasks[i] = &mtask{launch: int64(n - i)}
	}
	b.ReportAllocs()
	for b.Loop() {
		m.snap.Allocs, m.view.allocs = m.snap.Allocs[:0], m.view.allocs[:0]
		for i, t := range tasks {
			m.snap.Allocs = append(m.snap.Allocs, sched.Alloc{Job: i})
			m.view.allocs = append(m.view.allocs, allocRef{t: t})
		}
		m.orderAllocs()
	}
}
