package master

import (
	"maps"
	"slices"

	"github.com/allot-sched/allot/agent"
	"github.com/allot-sched/allot/store"
)

// A node's agent that registers again with another inventory (other
// GPUs, labels or pool than the node had, without a deletion between:
// a GPU fallen off the bus, a driver update that renames the type, an
// agent moved to another pool) changes the node in place, as Kubernetes
// lets a node's allocatable and labels change under the pods bound to it
// and Slurm keeps a job running on a node whose configuration changed:
//
//   - The tasks the agent still runs keep running, on the GPUs they were
//     given, even a GPU the new inventory lacks, and their job's GPU type
//     or pool is not checked again: nothing is killed for the change.
//   - Every GPU they hold counts against the node's new GPUs until they
//     end: the scheduler sees the node with max(its GPUs, the GPUs held)
//     slots, so a node with fewer GPUs than its tasks hold is full, never
//     over-committed, and new starts go to GPUs the new inventory lists
//     and no task holds (placeParts). From then on its GPUs, type, labels
//     and pool are the new ones for every new placement.
//   - Fair-share usage is a share of the nodes' own GPUs, the new ones
//     (snapNodes), not of what the tasks hold.
//   - The change is logged as a warning (reshaped) and kept in the node
//     history, in the registration's transaction (store.NodeReshaped,
//     NodeEvent.Shape, with the agent's pool), so that the what-if
//     export replays it (node_reshape, with a pool for a move under
//     the node rules in force: whatif_reshaped.go). A node a reload's
//     node rules move changes pool alike, and the reload records the
//     move in the history (store.MoveNodes, reload.go), as it records
//     a change of the labels its rules give (relabel.go).

// reshaped logs that node n, which was was before its agent registered
// again, running the attempts running, now has another inventory, with
// what its tasks hold. Callers hold mu.
func (ag *agents) reshaped(n *mnode, was store.Node, wasPool string, running []agent.TaskID) {
	now := n.rec
	if was.Pool == now.Pool && maps.Equal(was.Labels, now.Labels) && slices.Equal(was.GPUs, now.GPUs) {
		return
	}
	gone := 0
	for idx := range n.used {
		if !slices.ContainsFunc(now.GPUs, func(g store.GPU) bool { return g.Index == idx }) {
			gone++
		}
	}
	// The master's tasks on the node that its agent no longer runs (an
	// agent that restarted kills its tasks) end as lost at its first
	// sync; only those it still runs go on.
	runs := 0
	for _, id := range running {
		if ag.lookup(id).runsOn(now.Name) {
			runs++
		}
	}
	msg := "node registered again with another inventory; its agent runs none of its tasks"
	if runs > 0 {
		msg = "node registered again with another inventory: the tasks its agent still runs go on, the GPUs they hold count against its new ones until they end"
	}
	ag.m.log.Warn(msg,
		"node", now.Name, "gpus_was", len(was.GPUs), "gpus", len(now.GPUs), "type_was", gpuType(was), "type", gpuType(now),
		"pool_was", wasPool, "pool", n.pool, "labels_was", was.Labels, "labels", now.Labels,
		"tasks", len(ag.m.tasksOn(now.Name)), "tasks_running", runs, "gpus_held", len(n.used), "held_gpus_gone", gone,
		"over", max(len(n.used)-len(now.GPUs), 0))
}

// gpuType is the type of a node's GPUs, "" for none.
func gpuType(rec store.Node) string {
	if len(rec.GPUs) == 0 {
		return ""
	}
	return rec.GPUs[0].Type
}
