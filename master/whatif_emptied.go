package master

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/store"
)

// Pools that a node's move left without nodes. The export builds its
// pools from the nodes registered now, and a scenario pool has at least
// one node; a reload (or a registration) that moved a pool's only node
// to another pool in the window left that pool empty now, though its
// jobs ran and waited there. placeStarts puts such a node back in the
// pool it was in when the window began before the jobs are exported, so
// that the file keeps the pool and its jobs, and exportReshapes writes
// the move as a node_reshape with the new pool: the replay's node
// changes pool when the live master's did, its tasks running on (as
// reshape.go keeps them live). Only then are the pools still without a
// node left out (dropEmptyPools).

// placeStarts moves each node of sc to the pool it was in when the
// window began (from the node history evs) where that pool has no node
// in sc, unless the node's pool now would have none without it (a
// scenario pool has at least one node: the move is noted then, by
// setStarts). It returns, by pool, the slots of the nodes moved out of
// it, which it has at the window's end: a job of the pool is exported
// where it fits them too (jobExport.roomOf), as the scenario's parser counts
// a node in each pool its node_reshape events move it to; and, by pool
// with no node in sc, why a node that was in it when the window began
// stays out, for dropEmptyPools' note.
func placeStarts(sc *scenario.Scenario, cfg *config.Config, evs []store.NodeEvent, since time.Time) (movedOut map[string]int, stuck map[string]string) {
	ns := &nodeShapes{sc: sc, cfg: cfg, since: since, at: map[string]store.Node{}}
	ns.ruleBefore, ns.ruleKnown, _ = nodeRules(evs)
	inFile := map[string]bool{}
	for _, p := range sc.Pools {
		for _, n := range p.Nodes {
			inFile[n.Name] = true
		}
	}
	first := map[string]bool{}
	for i, e := range evs {
		switch {
		case !inFile[e.Node]:
		case e.At.Before(since):
			ns.note(i, e)
		case !first[e.Node] && (e.Deleted != nil || e.Shape != nil):
			// The first shape seen in the window is the node's start
			// where none was before, as nodeShapes.change reads it: a
			// deletion's, or a registration's that brought it up.
			first[e.Node] = true
			if _, known := ns.at[e.Node]; !known && (e.Deleted != nil || e.To == store.NodeUp) {
				ns.note(i, e)
			}
		}
	}
	movedOut, stuck = map[string]int{}, map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(ns.at)) {
		rec := ns.at[name]
		from := poolOfNode(sc, name)
		to := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == rec.Pool })
		if len(rec.GPUs) == 0 || to < 0 || to == from || len(sc.Pools[to].Nodes) > 0 || sc.Pools[to].SharesNodesWith != "" {
			continue
		}
		p := &sc.Pools[from]
		if len(p.Nodes) == 1 {
			if stuck[rec.Pool] == "" {
				stuck[rec.Pool] = fmt.Sprintf("and node %s, in it when the window began, is the only node of pool %s now, which a scenario pool needs", name, p.Name)
			}
			continue
		}
		k := slices.IndexFunc(p.Nodes, func(n scenario.Node) bool { return n.Name == name })
		movedOut[p.Name] += p.Nodes[k].Slots
		sc.Pools[to].Nodes = append(sc.Pools[to].Nodes, p.Nodes[k])
		p.Nodes = slices.Delete(p.Nodes, k, k+1)
		delete(stuck, rec.Pool)
	}
	return movedOut, stuck
}

// dropEmptyPools leaves out the pools of sc with no node, with a note
// each (stuck: placeStarts' reasons), and declares the projects as
// fair-share accounts where a pool left reads them.
func dropEmptyPools(sc *scenario.Scenario, cfg *config.Config, stuck map[string]string) []string {
	var notes []string
	sc.Pools = slices.DeleteFunc(sc.Pools, func(p scenario.Pool) bool {
		if len(p.Nodes) > 0 {
			return false
		}
		why := cmp.Or(stuck[p.Name], "nor was one when the window began")
		notes = append(notes, "pool "+p.Name+" left out: no node with GPUs is registered in it, "+why)
		return true
	})
	for i := range sc.Pools {
		slices.SortFunc(sc.Pools[i].Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
	}
	if usesFairShareAccounts(sc.Pools) {
		for _, p := range cfg.Projects {
			sc.Accounts = append(sc.Accounts, scenario.Account{Name: p.Name, Parent: p.Parent, Shares: p.Shares})
		}
	}
	return notes
}
