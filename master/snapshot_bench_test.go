package master

import (
	"strconv"
	"testing"
	"time"

	"github.com/allot-sched/allot/config"
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
	pl := &planner{m: &Master{cfg: &config.Config{}}}
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
		t.att.Launch(t.att.started.Unix(), false)
		if i%10 == 0 {
			t.rec.State, t.rec.UpdatedAt = store.TaskPreempting, now.Add(-time.Minute)
			t.next = []*mpart{part(i/gpus + 1)}
			t.att.Ask(t.rec.UpdatedAt.Unix(), int64(config.DefaultGrace/time.Second)) // as sendAll asks it
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

// BenchmarkSnapJobs builds the entries of 10,000 jobs (snapJob), as a
// pass does for every job after a reload or a change of the account
// tree: jobs of three projects and two users in a multifactor pool with
// fair share and a quota pool, a QOS and a license each, a third of them
// LOW.
func BenchmarkSnapJobs(b *testing.B) {
	const n = 10000
	cfg := mustConfig(b, `
pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1}}
  - {name: q, policy: quota}
projects:
  - {name: a, quota: 4}
  - {name: b, quota: 4}
  - {name: c, quota: 4}
licenses: {lic: 8}
default_pool: mf
default_project: a
`)
	m := &Master{cfg: cfg, fair: newFairShare(sched.Decay{})}
	pl := &planner{m: m}
	pl.view.pools = map[string]int{"mf": 0, "q": 1}
	pl.view.projects = map[string]int{"a": 0, "b": 1, "c": 2}
	jobs := make([]*mjob, n)
	for i := range jobs {
		rec := store.Job{ID: int64(i + 1), Kind: store.Kind("command"), Pool: []string{"mf", "q"}[i%2],
			Project: []string{"a", "b", "c"}[i%3], User: []string{"ann", "bob"}[i%2], SubmittedAt: time.Unix(int64(i), 0),
			Priority: 50, PriorityClass: "NORMAL", Weight: 1, Slots: 1 + i%4, MaxConcurrent: i % 3, TimeLimit: time.Hour}
		if i%3 == 0 {
			rec.Priority, rec.PriorityClass, rec.Preemptible = 70, "LOW", true
		}
		m.fair.addLeaf(rec.Project, rec.User)
		jobs[i] = &mjob{rec: rec, tasks: make([]*mtask, 1+i%5),
			spec: specHints{qos: cfg.DefaultQOS, licenses: []licenseUse{{name: "lic", count: 1}}}}
	}
	m.fair.rebuild(cfg)
	b.ReportAllocs()
	for b.Loop() {
		for _, j := range jobs {
			if _, ok := pl.snapJob(j); !ok {
				b.Fatalf("job %d left out: %+v", j.rec.ID, j.pending)
			}
		}
	}
}

// BenchmarkSnapNodes builds the nodes of a big cluster, as each pass's
// snapshot does (snapNodes): 2,000 nodes of 8 GPUs in a multifactor and
// a priority pool, labelled with their switch, every tenth drained and
// every fiftieth lost, twenty of them given labels by the config's node
// rules, a quarter holding more GPUs than they have (registered again
// with fewer).
func BenchmarkSnapNodes(b *testing.B) {
	const nodes, gpus = 2000, 8
	src := `
pools:
  - {name: mf, policy: multifactor, multifactor: {fair_share: 1}}
  - {name: prio, policy: priority, zero_slot_limit: 4}
default_pool: mf
nodes:
`
	for i := 0; i < nodes; i += nodes / 20 {
		src += "  - {name: n" + strconv.Itoa(i) + ", labels: {rack: r" + strconv.Itoa(i) + "}}\n"
	}
	m := &Master{cfg: mustConfig(b, src), nodes: map[string]*mnode{}}
	pl := &planner{m: m}
	pl.view.pools = map[string]int{"mf": 0, "prio": 1}
	now := time.Unix(1_000_000, 0)
	for i := range nodes {
		name := "n" + strconv.Itoa(i)
		rec := store.Node{Name: name, State: store.NodeUp, Labels: map[string]string{"switch": "s" + strconv.Itoa(i/40)}}
		for g := range gpus {
			rec.GPUs = append(rec.GPUs, store.GPU{Index: g, Type: "h100"})
		}
		nd := &mnode{rec: rec, pool: []string{"mf", "prio"}[i%2], used: map[int]*mtask{}}
		held := gpus / 2
		if i%4 == 0 {
			held = gpus + 2
		}
		for g := range held {
			nd.used[g] = nil
		}
		if i%10 == 0 {
			nd.rec.Drain = &store.NodeDrain{At: now}
		}
		if i%50 == 0 {
			nd.rec.State = store.NodeLost
		}
		m.nodes[name] = nd
	}
	b.ReportAllocs()
	for b.Loop() {
		if pl.snapNodes() == 0 {
			b.Fatal("no fair-share capacity")
		}
	}
}
