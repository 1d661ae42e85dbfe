package master

import (
	"cmp"
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// Nodes deleted from the master (DELETE /nodes/{name}) in the export. A
// deleted node leaves the store's nodes, but it counted in the master's
// capacity, and may have run tasks, until the deletion: the export keeps
// it in its pool and takes it down for good at the deletion (node_down
// with no node_up, unless a node of its name registers again), so that
// the replay has it when the live master had it. The master keeps what
// it deleted in memory (Master.deleted): a master restarted since forgets
// it, and the export then leaves the node out, as it did before.

// deletedNode is a node the master deleted, and when.
type deletedNode struct {
	node *mnode
	at   time.Time
}

// nodeDeleted is the state a deleted node goes to in the export's merge
// of the node history with the deletions; the store records none.
const nodeDeleted store.NodeState = "deleted"

// noteDeleted keeps n, deleted now, for the export. Callers hold mu.
func (m *Master) noteDeleted(n *mnode) {
	m.deleted = append(m.deleted, deletedNode{node: n, at: m.now()})
}

// exportDeletedNodes adds to sc's pools the nodes deleted at or after
// since that no node of the master has the name of now, as they were
// when deleted. Callers hold mu.
func (ca *clusterAPI) exportDeletedNodes(sc *scenario.Scenario, since time.Time) {
	for _, d := range ca.m.deleted {
		n := d.node
		if d.at.Before(since) || ca.m.nodes[n.rec.Name] != nil || len(n.rec.GPUs) == 0 {
			continue
		}
		i := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == n.pool })
		if i < 0 || slices.ContainsFunc(sc.Pools[i].Nodes, func(sn scenario.Node) bool { return sn.Name == n.rec.Name }) {
			continue
		}
		sn := scenario.Node{Node: spec.Node{Name: n.rec.Name, Labels: nodeLabels(ca.m.cfg, n)}, Slots: len(n.rec.GPUs), GPU: n.rec.GPUs[0].Type}
		if len(sn.Labels) == 0 {
			sn.Labels = nil
		}
		sc.Pools[i].Nodes = append(sc.Pools[i].Nodes, sn)
		slices.SortFunc(sc.Pools[i].Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
	}
}

// withDeletions merges the deletions the master kept into the node
// history evs, as events to nodeDeleted at their times, leaving the
// history's own order as it is (a deletion at the time of a recorded
// event comes after it). Callers hold mu.
func (m *Master) withDeletions(evs []store.NodeEvent) []store.NodeEvent {
	if len(m.deleted) == 0 {
		return evs
	}
	out := make([]store.NodeEvent, 0, len(evs)+len(m.deleted))
	dels := m.deleted
	for _, e := range evs {
		for len(dels) > 0 && dels[0].at.Before(e.At) {
			out = append(out, deletionEvent(dels[0]))
			dels = dels[1:]
		}
		out = append(out, e)
	}
	for _, d := range dels {
		out = append(out, deletionEvent(d))
	}
	return out
}

func deletionEvent(d deletedNode) store.NodeEvent {
	return store.NodeEvent{Node: d.node.rec.Name, From: d.node.rec.State, To: nodeDeleted, At: d.at}
}
