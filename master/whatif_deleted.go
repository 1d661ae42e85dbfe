package master

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
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
// Deleted), so that a master restarted since exports it too. A node of
// a deleted one's name that registers again with another shape is the
// node changing shape (node_reshape, whatif_reshaped.go), and one in
// another pool is noted there.

// deleted reads the nodes deleted at or after since from the node
// history, each as it was at its deletion, with the deletion's time, in
// the history's order: a name deleted, registered again and deleted
// again is there twice.
func (hs *history) deleted(ctx context.Context, since time.Time) ([]deletedNode, error) {
	evs, err := hs.st.NodeEvents(ctx, store.NodeEventFilter{Since: since})
	if err != nil {
		return nil, fmt.Errorf("read the node history: %w", err)
	}
	var out []deletedNode
	for _, e := range evs {
		if e.To == store.NodeDeleted && e.Deleted != nil {
			out = append(out, deletedNode{*e.Deleted, e.At})
		}
	}
	return out, nil
}

// deletedNode is a node as it was deleted, and when.
type deletedNode struct {
	rec store.Node
	at  time.Time
}

// exportedNode is the scenario's node for rec, and its pool under the
// configuration now, as the master has its nodes.
func exportedNode(cfg *config.Config, rec store.Node) (string, scenario.Node) {
	n := &mnode{rec: rec, pool: nodePool(cfg, rec.Name, rec.Pool)}
	sn := scenario.Node{Node: spec.Node{Name: rec.Name, Labels: nodeLabels(cfg, n)}, Slots: len(rec.GPUs), GPU: rec.GPUs[0].Type}
	if len(sn.Labels) == 0 {
		sn.Labels = nil
	}
	return n.pool, sn
}

// exportDeletedNodes adds to sc's pools the deleted nodes dels that no
// node of the master has the name of now, in their pools under the
// configuration now, as the nodes the master has are; a name deleted
// twice, as it was at its first deletion. Callers hold mu.
func (ca *clusterAPI) exportDeletedNodes(sc *scenario.Scenario, dels []deletedNode) {
	for _, d := range dels {
		if ca.m.nodes[d.rec.Name] != nil || len(d.rec.GPUs) == 0 || poolOfNode(sc, d.rec.Name) >= 0 {
			continue
		}
		pool, sn := exportedNode(ca.m.cfg, d.rec)
		i := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == pool })
		if i < 0 {
			continue
		}
		sc.Pools[i].Nodes = append(sc.Pools[i].Nodes, sn)
		slices.SortFunc(sc.Pools[i].Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
	}
}

// poolOfNode is the index of the pool of sc that has a node named name,
// -1 for none.
func poolOfNode(sc *scenario.Scenario, name string) int {
	return slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool {
		return slices.ContainsFunc(p.Nodes, func(n scenario.Node) bool { return n.Name == name })
	})
}
