package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/master/mastertest"
)

// Nodes whose agents register again with another inventory, without a
// deletion (reshape.go): the tasks on them run on, every GPU they hold
// counting against the new ones; the export writes each node as it was
// when the window began and the change as a node_reshape
// (whatif_reshaped.go), which the simulator applies the same way
// (lifecycle.EventNodeReshape).

// reshapeJobs: a holds n1's four GPUs until 300 and b n2's two until
// 500; w (2 GPUs) waits from 50, and v (1) behind it, FIFO.
var reshapeJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "b", slots: 2, submit: 0, run: 500},
	{name: "w", slots: 2, submit: 50, run: 100},
	{name: "v", slots: 1, submit: 150, run: 100},
}

func reshapeCases() []replayCase {
	fifo := "pools:\n  - {name: default, policy: fifo}\n"
	return []replayCase{
		// n1 registers again at 100 with two GPUs while a holds four: it
		// is full until a ends at 300, and w starts on its two then (v
		// on n3). A replay that gave n1 two slots from the start, or its
		// two at 100 with a's four on them, differs.
		{name: "fifo-node-fewer-gpus", config: fifo, nodes: replayNodes, jobs: reshapeJobs,
			reshapes: []rdown{{node: "n1", at: 100, gpus: 2}}},
		// n1's GPUs are another type from 100: na, asking for it, waits
		// for a's end; nh, asking for the old type, for b's on n2.
		{name: "fifo-node-other-type", config: fifo, nodes: replayNodes, reshapes: []rdown{{node: "n1", at: 100, gpu: "a100"}},
			jobs: append(slices.Clone(reshapeJobs[:2]),
				rjob{name: "na", slots: 2, submit: 150, run: 100, extra: `, "gpu": "a100"`},
				rjob{name: "nh", slots: 2, submit: 160, run: 100, extra: `, "gpu": "h100"`})},
		// Under a multifactor pool weighing fair share: n1 registers
		// again at 100 with two GPUs while a1 holds four, and the
		// capacity that usage is a share of is the nodes' own GPUs from
		// then on, 5, on the master as in the simulator
		// (Ledgers.SetCapacity); n3 registers again with three at 400,
		// 7, and wb, whose project used less, starts first on n2 and n3
		// then, wa at wb's end.
		{name: "multifactor-node-reshaped", config: lossShareConfig, nodes: replayNodes, jobs: lossShareJobs,
			reshapes: []rdown{{node: "n1", at: 100, gpus: 2}, {node: "n3", at: 400, gpus: 3}}},
	}
}

// movePools: default has n1 and n2, b has n3 (a node rule pins it).
const movePools = "pools:\n  - {name: default, policy: fifo}\n  - {name: b, policy: fifo}\nnodes:\n  - {name: n3, pool: b}\n"

// poolMoveJobs: a holds n1 until 300, d n2 until 500 and c n3 until 400; w
// (default) waits from 50, x and y (b) from 150 and 160.
var poolMoveJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "d", slots: 2, submit: 0, run: 500},
	{name: "c", slots: 1, submit: 0, run: 400, pool: "b"},
	{name: "w", slots: 2, submit: 50, run: 100},
	{name: "x", slots: 2, submit: 150, run: 100, pool: "b"},
	{name: "y", slots: 1, submit: 160, run: 100, pool: "b"},
}

// poolMoveCases: n2's agent registers again in pool b at 100 while d
// runs there (reshape.go): d runs on, and from d's end at 500 n2's
// slots are b's: x starts there then, not w, which waits for a's end
// on n1, and y on n3 at c's end. The export writes n2 in default and
// its move as a node_reshape with pool b (whatif_reshaped.go); a replay
// that kept n2 in default would start w on it, and could never run x.
func poolMoveCases() []replayCase {
	return []replayCase{
		{name: "fifo-node-moves-pool", config: movePools, nodes: replayNodes, jobs: poolMoveJobs,
			reshapes: []rdown{{node: "n2", at: 100, pool: "b"}}},
		// It moves with three GPUs, and back to default at 520, where z
		// starts on it at 550. n3 has two GPUs here (the export used to
		// leave out a job larger than its pool now, as x would have been).
		{name: "fifo-node-moves-pool-and-back", config: movePools, nodes: []rnode{{"n1", 4}, {"n2", 2}, {"n3", 2}},
			jobs:     append(slices.Clone(poolMoveJobs), rjob{name: "z", slots: 3, submit: 550, run: 100}),
			reshapes: []rdown{{node: "n2", at: 100, pool: "b", gpus: 3}, {node: "n2", at: 520, pool: "default"}}},
		// n2 is drained at 50 and moves drained, d on it: it stays
		// drained in b until resumed at 600, when x starts there.
		{name: "fifo-drained-node-moves-pool", config: movePools, nodes: replayNodes, jobs: poolMoveJobs,
			drains: []rdown{{node: "n2", at: 50, back: 600}}, reshapes: []rdown{{node: "n2", at: 100, pool: "b"}}},
		// n1 leaves the multifactor pool for b at 100 with a1 on it, and
		// comes back at 650 with bx on it: the capacity that usage is a
		// share of is 3, then 7 again, on the master as in the
		// simulator, and wa and wb wait for n1's four in default while bx
		// waits in b.
		{name: "multifactor-node-moves-pool", config: moveShareConfig, nodes: replayNodes,
			jobs: append(append(slices.Clone(lossShareJobs[:3]),
				rjob{name: "wb", slots: 4, submit: 50, run: 100, project: "b"}), // before n1 leaves: the master refuses a job too big for its pool
				rjob{name: "bc", slots: 1, submit: 0, run: 700, pool: "b"},
				rjob{name: "bx", slots: 1, submit: 20, run: 200, pool: "b"}),
			reshapes: []rdown{{node: "n1", at: 100, pool: "b"}, {node: "n1", at: 650, pool: "default"}}},
		// n2 leaves the multifactor pool for b at 100 with b1 on it: the
		// capacity is 4 from then on, not 6, which makes wa's age weigh
		// more than its project's usage at a1's end, and wa starts
		// first (a replay that counted n2 in default started wb).
		{name: "multifactor-n2-moves-pool", config: moveShareConfig, nodes: replayNodes,
			jobs:     append(slices.Clone(lossShareJobs), rjob{name: "bc", slots: 1, submit: 0, run: 700, pool: "b"}),
			reshapes: []rdown{{node: "n2", at: 100, pool: "b"}}},
	}
}

// moveShareConfig is lossShareConfig's multifactor pool with a FIFO
// pool b, which n3 is pinned to.
const moveShareConfig = `
pools:
  - name: default
    policy: multifactor
    multifactor: {fair_share: 100, age: 100, max_age: 10m, fair_share_mode: classic}
  - {name: b, policy: fifo}
nodes:
  - {name: n3, pool: b}
projects:
  - {name: a}
  - {name: b}
default_project: a
decay: {period: 5m, per_period: 0.5}
lost_node_grace: 0s
`

// TestReplayNodeMovesPool: a node moved to another pool while its tasks
// run and jobs wait in both pools replays byte for byte, batched and
// live.
func TestReplayNodeMovesPool(t *testing.T) {
	checkBatchedAndLive(t, poolMoveCases())
}

// reshapeNodes registers again the agents whose reshape is due, with
// their new GPUs, listing what they run.
func (d *replayDriver) reshapeNodes(t *testing.T, now float64) {
	for d.reshaped < len(d.c.reshapes) && d.c.reshapes[d.reshaped].at <= now+1e-9 {
		r := d.c.reshapes[d.reshaped]
		d.reshaped++
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond) // as for a drain (drainNodes)
		}
		ag := d.agents[slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == r.node })]
		if r.gpus > 0 {
			ag.GPUs = r.gpus
		}
		if r.gpu != "" {
			ag.GPUType = r.gpu
		}
		if r.pool != "" {
			ag.Pool = r.pool
		}
		if r.labels != nil {
			ag.Labels = r.labels
		}
		ag.Master = d.h.srv.URL
		if _, err := ag.Register(d.h.ctx); err != nil {
			t.Fatal(err)
		}
		if d.c.eager {
			d.settle(t)
		}
	}
}

// TestReplayNodeReshapedInPlace: the cases replay byte for byte,
// batched and live.
func TestReplayNodeReshapedInPlace(t *testing.T) {
	checkBatchedAndLive(t, reshapeCases())
}
