package master

import (
	"slices"
	"testing"
	"time"

	"github.com/allot-sched/allot/master/mastertest"
)

// A node deleted from the master during the window (DELETE
// /nodes/{name}): the export keeps it, with its deletion as a node_down
// for good (whatif_deleted.go), so that the replay has it while the
// master had it.

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
	}
}

// deleteNodes deletes the nodes whose deletion is due, as an admin does
// through the API once they run nothing, and stops their agents: they
// would register again, as a new node, at their next sync.
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
}

// TestReplayNodeDeleted: the cases replay byte for byte, batched and
// live.
func TestReplayNodeDeleted(t *testing.T) {
	for _, c := range deletedNodeCases() {
		t.Run(c.name, func(t *testing.T) { checkReplay(t, c) })
		c.tick, c.eager = 5, true
		t.Run(c.name+"-live", func(t *testing.T) { checkReplay(t, c) })
	}
}
