package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/sched"
	"github.com/allot-sched/allot/store"
)

// BenchmarkSnapTasks builds the allocations of a busy cluster, as each
// pass's snapshot does (snapTask, capDrained): 10,000 one-GPU tasks on 1,250
// nodes of 8 GPUs, every tenth being moved to another node, and the
// first node drained.
func BenchmarkSnapTasks(b *testing.B) {
	const nodes, gpus, n = 1250, 8, 10000
	now := time.Unix(1_000_000, 0)
	pl := &planner{m: &Master{}}
	nodeIdx := make(map[string]int32, nodes)
	for i := range nodes {
		name := "n" + strconv.Itoa(i)
		nodeIdx[name] = int32(i)
		nd := &mnode{rec: store.Node{Name: name}}
		if i == 0 {
			nd.rec.Drain = &store.NodeDrain{At: now}
		}
		pl.view.nodes = append(pl.view.nodes, nd)
		pl.snap.Nodes = append(pl.snap.Nodes, sched.Node{Name: name, Slots: gpus, ZeroSlotLimit: 8})
	}
	j := &mjob{spec: specHints{checkpointEvery: 600}}
	tasks := make([]*mtask, n)
	for i := range tasks {
		part := func(node int) *mpart {
			return &mpart{node: "n" + strconv.Itoa(node%nodes), gpus: []store.GPURef{{Index: i % gpus}}}
		}
		t := &mtask{job: j, rec: store.Task{State: store.TaskRunning}}
		t.att = &mattempt{started: now.Add(-time.Hour), parts: []*mpart{part(i / gpus)}}
		if i%10 == 0 {
			t.rec.State = store.TaskPreempting
			t.next, t.nextAt = []*mpart{part(i/gpus + 1)}, now.Add(-time.Minute)
		}
		tasks[i] = t
	}
	pl.snap.Now = now.Unix()
	pl.snap.Jobs = []sched.Job{{Account: -1}}
	b.ReportAllocs()
	for b.Loop() {
		pl.snap.Allocs, pl.view.allocs = pl.snap.Allocs[:0], pl.view.allocs[:0]
		for _, t := range tasks {
			pl.snapTask(0, t, nodeIdx, now)
		}
		pl.capDrained()
	}
}
