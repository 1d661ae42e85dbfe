package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// Nodes deleted from the master (DELETE /nodes/{name}) in the export. A
// deleted node leaves the store's nodes, but it counted in the master's
// capacity, and may have run tasks, until the deletion: the export keeps
// it in its pool and deletes it at the deletion (node_delete: down, and
// out of the fair-share capacity, until a node of its name registers
// again, node_up), so that the replay has it when the live master had
// it. The store records each deletion in the node history, in the
// deletion's transaction, with what the node was (store.NodeEvent's
// Deleted), so that a master restarted since exports it too.

// deletedSince reads the nodes deleted at or after since from the node
// history, each name once, as it was at its first deletion then.
func (m *Master) deletedSince(ctx context.Context, since time.Time) ([]store.Node, error) {
	evs, err := m.st.NodeEvents(ctx, store.NodeEventFilter{Since: since})
	if err != nil {
		return nil, fmt.Errorf("read the node history: %w", err)
	}
	var out []store.Node
	for _, e := range evs {
		if e.To == store.NodeDeleted && e.Deleted != nil &&
			!slices.ContainsFunc(out, func(n store.Node) bool { return n.Name == e.Node }) {
			out = append(out, *e.Deleted)
		}
	}
	return out, nil
}

// exportDeletedNodes adds to sc's pools the deleted nodes dels that no
// node of the master has the name of now, in their pools under the
// configuration now, as the nodes the master has are. Callers hold mu.
func (ca *clusterAPI) exportDeletedNodes(sc *scenario.Scenario, dels []store.Node) {
	for _, rec := range dels {
		if ca.m.nodes[rec.Name] != nil || len(rec.GPUs) == 0 {
			continue
		}
		n := &mnode{rec: rec, pool: nodePool(ca.m.cfg, rec.Name, rec.Pool)}
		i := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == n.pool })
		if i < 0 || slices.ContainsFunc(sc.Pools[i].Nodes, func(sn scenario.Node) bool { return sn.Name == rec.Name }) {
			continue
		}
		sn := scenario.Node{Node: spec.Node{Name: rec.Name, Labels: nodeLabels(ca.m.cfg, n)}, Slots: len(rec.GPUs), GPU: rec.GPUs[0].Type}
		if len(sn.Labels) == 0 {
			sn.Labels = nil
		}
		sc.Pools[i].Nodes = append(sc.Pools[i].Nodes, sn)
		slices.SortFunc(sc.Pools[i].Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
	}
}
