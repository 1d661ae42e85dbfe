package master

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sched/allot/master/mastertest"
)

// A node deleted from the master during the window (DELETE
// /nodes/{name}): the export keeps it, deleted at its deletion
// (node_delete, whatif_deleted.go), so that the replay has it while the
// master had it, also after a restart.

// deletedNodeJobs: x runs on n3 from 0 to 40, and n3 is deleted at 50;
// c, submitted at 100, waits for a or b to end. Without n3 from the
// start, the replay's x waits too.
var deletedNodeJobs = []rjob{
	{name: "a", slots: 4, submit: 0, run: 300},
	{name: "b", slots: 2, submit: 0, run: 500},
	{name: "x", slots: 1, submit: 0, run: 40},
	{name: "c", slots: 1, submit: 100, run: 100},
	{name: "d", slots: 3, submit: 110, run: 100, extra: preemptible},
}

func deletedNodeCases() []replayCase {
	return []replayCase{
		{name: "fifo-node-deleted", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
			deletes: []rdown{{node: "n3", at: 50}}, jobs: deletedNodeJobs},
		{name: "priority-node-deleted", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, deletes: []rdown{{node: "n3", at: 50}}, jobs: deletedNodeJobs},
		// The master restarted after the deletion reads it back from
		// the node history (store.NodeDeleted); a master that kept it in
		// memory exported n3 no more, and the replay's x waited.
		{name: "priority-node-deleted-restart", config: "pools:\n  - {name: default, policy: priority, preemption: true}\n",
			nodes: replayNodes, deletes: []rdown{{node: "n3", at: 50}}, restarts: []float64{60}, jobs: deletedNodeJobs},
		// A node deleted under a multifactor pool leaves the capacity
		// that fair-share usage is a share of, where a lost one stays
		// (lifecycle.InFairShareCapacity; multifactor-node-loss): usage
		// is a share of 5 slots from n2's deletion at 100, and wb, whose
		// project used less, starts before older wa at 600. The export
		// deletes n2 (node_delete) and the simulator drops its slots
		// then; taking it down only, it started wa.
		{name: "multifactor-node-deleted", config: lossShareConfig, nodes: replayNodes, jobs: lossShareJobs,
			deletes: []rdown{{node: "n2", at: 100}}},
		{name: "multifactor-node-deleted-restart", config: lossShareConfig, nodes: replayNodes, jobs: lossShareJobs,
			deletes: []rdown{{node: "n2", at: 100}}, restarts: []float64{150, 600}},
	}
}

// deleteNodes deletes the nodes whose deletion is due, as an admin does
// through the API once they run nothing, and stops their agents: they
// would register again, as a new node, at their next sync. A deleted
// node's agent whose back is due registers again, with the case's GPUs.
func (d *replayDriver) deleteNodes(t *testing.T, now float64) {
	for d.deleted < len(d.c.deletes) && d.c.deletes[d.deleted].at <= now+1e-9 {
		dn := d.c.deletes[d.deleted]
		d.deleted++
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond) // as for a drain (drainNodes)
		}
		if code := d.h.do("DELETE", "/api/v1/nodes/"+dn.node, nil, nil); code/100 != 2 {
			t.Fatalf("delete %s: %d", dn.node, code)
		}
		d.down[slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == dn.node })] = true
		if d.c.eager {
			d.settle(t)
		}
	}
	for k, dn := range d.c.deletes[:d.deleted] {
		if dn.back <= 0 || d.reborn[k] || dn.back > now+1e-9 {
			continue
		}
		if d.reborn == nil {
			d.reborn = map[int]bool{}
		}
		d.reborn[k] = true
		if d.c.eager {
			d.h.clock.Advance(time.Millisecond)
		}
		i := slices.IndexFunc(d.agents, func(ag *mastertest.Agent) bool { return ag.Name == dn.node })
		ag := d.agents[i]
		if dn.gpus > 0 {
			ag.GPUs = dn.gpus
		}
		ag.Restart()
		ag.Master = d.h.srv.URL
		if _, err := ag.Register(d.h.ctx); err != nil {
			t.Fatal(err)
		}
		d.down[i] = false
		if d.c.eager {
			d.settle(t)
		}
	}
}

// TestReplayNodeDeleted: the cases replay byte for byte, batched and
// live.
func TestReplayNodeDeleted(t *testing.T) {
	checkBatchedAndLive(t, deletedNodeCases())
}

// TestReplayNodeReshaped: n3, of 1 GPU, is deleted at 50 and a node of
// its name registers at 200 with 2. The export writes n3 as it was when
// the window began, of 1 slot, and its new shape as a node_reshape at
// 200 (whatif_reshaped.go): y, waiting for 2 slots, starts on n3 then,
// live and replayed. Before, a scenario had one shape per node, the
// export wrote n3 of 2 slots from the start, and the replay's y started
// at 40 and was lost at the deletion.
func TestReplayNodeReshaped(t *testing.T) {
	c := replayCase{name: "fifo-node-reshaped", config: "pools:\n  - {name: default, policy: fifo}\n", nodes: replayNodes,
		deletes: []rdown{{node: "n3", at: 50, back: 200, gpus: 2}}, jobs: []rjob{
			{name: "a", slots: 4, submit: 0, run: 300},
			{name: "b", slots: 2, submit: 0, run: 500},
			{name: "x", slots: 1, submit: 0, run: 40},
			{name: "y", slots: 2, submit: 10, run: 30},
			{name: "c", slots: 1, submit: 100, run: 100},
		}}
	const reshape = "- at: 200\n      node_reshape:\n        node: n3\n        slots: 2\n        gpu: h100\n"
	for _, eager := range []bool{false, true} {
		c.eager = eager
		name := c.name + map[bool]string{true: "-live"}[eager]
		t.Run(name, func(t *testing.T) {
			if body := checkReplay(t, c); !strings.Contains(body, reshape) || strings.Contains(body, "# Note: node n3") {
				t.Errorf("the export does not reshape n3 at 200, or notes it:\n%s", body)
			}
		})
	}
}
