package master

import (
	"strconv"
	"testing"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// aheadSnapshot is a pool of policy with nodes 8-slot nodes, full with one
// 2-slot job per quarter node across projects, and waiting jobs of every
// project behind, the last of them the one to explain: the play-out has
// jobs served before it whatever ends.
func aheadSnapshot(policy sched.Policy, nodes, waiting int) *sched.Snapshot {
	const projects = 8
	s := &sched.Snapshot{Now: 1000, Pools: []sched.Pool{{Name: "q", Policy: policy}}}
	for p := 0; p < projects; p++ {
		s.Projects = append(s.Projects, sched.Project{Name: "p" + strconv.Itoa(p), Parent: -1, Quota: nodes})
	}
	for n := 0; n < nodes; n++ {
		s.Nodes = append(s.Nodes, sched.Node{Name: "n" + strconv.Itoa(n), Slots: 8})
		for k := 0; k < 4; k++ {
			id := len(s.Jobs)
			s.Jobs = append(s.Jobs, sched.Job{ID: strconv.Itoa(id), Project: id % projects, Preemptible: true, Slots: 2, QOS: -1, Weight: 1, MaxRunning: 1,
				Submit: int64(id), Seq: int64(id), TimeLimit: int64(3600 + id)})
			s.Allocs = append(s.Allocs, sched.Alloc{Job: id, Start: 500,
				Nodes: []sched.NodeSlots{{Node: int32(n), Slots: 2}}})
		}
	}
	for w := 0; w < waiting; w++ {
		id := len(s.Jobs)
		s.Jobs = append(s.Jobs, sched.Job{ID: strconv.Itoa(id), Project: id % projects, Preemptible: true, Slots: 4, Waiting: 1, Weight: 1, MaxRunning: 1,
			QOS: -1, Submit: int64(id), Seq: int64(id)})
	}
	return s
}

// BenchmarkExplainAhead: explain's counterfactual for the last waiting
// job of a full quota pool, with its play-out of the jobs the pool
// serves first (up to maxAheadPasses scheduling passes over the pool).
func BenchmarkExplainAhead(b *testing.B) {
	for _, size := range []struct {
		policy         sched.Policy
		name           string
		nodes, waiting int
	}{{sched.PolicyFIFO, "fifo", 100, 200}, {sched.PolicyFIFO, "fifo", 1000, 2000},
		{sched.PolicyQuota, "quota", 100, 200}, {sched.PolicyQuota, "quota", 1000, 2000}} {
		name := size.name + "-" + strconv.Itoa(size.nodes) + "nodes-" + strconv.Itoa(size.waiting) + "waiting"
		b.Run(name, func(b *testing.B) {
			cfg := mustConfig(b, "pools:\n  - {name: q, policy: "+size.name+"}\ndefault_pool: q\ndefault_project: p0\nprojects:\n  - {name: p0, quota: 1}\n")
			s := aheadSnapshot(size.policy, size.nodes, size.waiting)
			ji := len(s.Jobs) - 1
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f := &cfFacts{s: s, cfg: cfg, rec: func(int) *store.Job { return nil }}
				cf := f.counterfactual(ji)
				if cf = f.playAhead(ji, cf, f.ask); cf == nil || cf.Message == "" {
					b.Fatal("no answer")
				} else if len(cf.StartFirst) == 0 {
					b.Fatalf("no job served first: %s", cf.Message)
				}
			}
		})
	}
}
