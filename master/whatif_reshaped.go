package master

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/allot-sched/allot/config"
	"github.com/allot-sched/allot/scenario"
	"github.com/allot-sched/allot/spec"
	"github.com/allot-sched/allot/store"
)

// Nodes whose shape changed in the window, in the export. A node's agent
// that registers again with other GPUs, labels or pool (reshape.go), and
// a node of a deleted one's name that registers with another shape, are
// in the node history with the node's shape (store.NodeEvent's Shape; a
// deletion's Deleted). The export writes each node of the file as it was
// when the window began, and a node_reshape at each registration that
// changed its slots, GPU type, labels or pool, and at each move by a
// reload (store.MoveNodes; a registration's event keeps the pool it put
// the node in beside its agent's, store.Node's PoolInEffect: inPool), so
// that the replay's node has, at every instant, the shape and pool the live master's had: a
// node that moved to another pool is written in the pool it was in when
// the window began, and each move as a node_reshape with the new pool.
// Its labels are those in effect, a node rule's over its agent's: a
// reload's event (To store.NodeRelabeled) has them, and so does a
// registration's (store.Node's InEffect), so a reload that changed the
// rule's labels is a node_reshape with the new ones, and the node's
// labels when the window began are those in effect then. A registration
// recorded before they were has its agent's only, read under the rule in
// effect then as the history implies it (relabel.go's nodeRules).
// A move to or from a pool the file lacks is kept out, with a note, and
// so is a node whose shape before a change is not in the history
// (registered before shapes were recorded): it is written as the master
// has it now.

// nodeShapes walks the node history for the nodes of sc's pools: each
// one's shape when the window began, and the changes within it.
type nodeShapes struct {
	sc    *scenario.Scenario
	cfg   *config.Config
	since time.Time
	// at is each node's shape as of the history read so far (the node
	// as it was just before a deletion), where known.
	at map[string]store.Node
	// start is each node's shape when the window began, where known;
	// one with no GPUs is written as the master has it now.
	start map[string]store.Node
	// moved are the nodes whose move to another pool is noted: the
	// replay keeps them in their pool in the file.
	moved map[string]bool
	// ruleBefore and ruleKnown are the rules each event carrying agent
	// labels alone was read under, by its index in the history
	// (nodeRules): where none is known, the rules in force now.
	ruleBefore map[int]map[string]string
	ruleKnown  map[int]bool
	notes      []string
}

// exportReshapes sets sc's nodes to their shapes when the window
// [since, until) began and adds node_reshape events for the changes
// within it, from the whole node history evs, with the after_pass and
// before of any node event (after: afterPassAt's; subs, the exported
// submissions). It returns notes for what a scenario cannot carry, and
// the live time of each event it added (liveOrder).
func exportReshapes(sc *scenario.Scenario, cfg *config.Config, evs []store.NodeEvent, after func(time.Time) bool,
	subs []exportedSub, since, until time.Time) ([]string, []time.Time) {
	ns := &nodeShapes{sc: sc, cfg: cfg, since: since, at: map[string]store.Node{}, start: map[string]store.Node{},
		moved: map[string]bool{}}
	ns.ruleBefore, ns.ruleKnown, _ = nodeRules(evs)
	inFile := map[string]bool{}
	for _, p := range sc.Pools {
		for _, n := range p.Nodes {
			inFile[n.Name] = true
		}
	}
	for i, e := range evs {
		if e.At.Before(since) && inFile[e.Node] {
			ns.note(i, e)
		}
	}
	maps.Copy(ns.start, ns.at)
	var out []scenario.Event
	var times []time.Time
	for i, e := range evs {
		if e.At.Before(since) || !e.At.Before(until) || !inFile[e.Node] {
			continue
		}
		// Every node event of the window, in the history's order, as
		// exportNodeEvents asks afterPassAt.
		afterPass := after(e.At)
		if ev, ok := ns.change(i, e); ok {
			// A registration that is also the node's return (From not
			// up: it was lost, left or deleted) is one with its node_up,
			// which comes first in its instant: no pass between them. A
			// reload's move has no node_up.
			ev.AfterPass = afterPass && (e.From == store.NodeUp || e.From == store.NodeReconfigured)
			ev.Before = beforeJob(subs, e.At, since, ev.At)
			out = append(out, ev)
			times = append(times, e.At)
		}
	}
	ns.setStarts()
	for i := range out {
		if ns.moved[out[i].Node] {
			out[i].Pool = "" // kept in its pool, noted
		}
	}
	sc.Events = append(sc.Events, out...)
	return ns.notes, times
}

// note takes history event e, the i-th, before the window, into the
// nodes' shapes.
func (ns *nodeShapes) note(i int, e store.NodeEvent) {
	switch {
	case e.Deleted != nil:
		ns.at[e.Node] = ns.inPool(i, e, *e.Deleted)
	case e.Shape != nil:
		ns.at[e.Node] = ns.inPool(i, e, *e.Shape)
	}
}

// inPool is rec, the shape of history event e, the i-th, with the pool
// the node was in then and the labels in effect (a registration's
// recorded, or relabel.go's reading of them). A reload's move and a
// registration have the pool (store.Node's PoolInEffect; a registration
// recorded before it was kept that pool alone). A deletion has the
// agent's: the node was in the pool the history gave it last, or, where
// that is unknown, the one the configuration in force now gives it.
func (ns *nodeShapes) inPool(i int, e store.NodeEvent, rec store.Node) store.Node {
	switch {
	case rec.InEffect != nil:
		// A registration that kept the labels in effect.
		rec.Labels, rec.InEffect = labelsInEffect(rec.InEffect, nil), nil
	case e.To != store.NodeRelabeled:
		// Agent labels alone: the rule over them then (relabel.go).
		rule, ok := ns.ruleBefore[i], ns.ruleKnown[i]
		if !ok {
			rule = configRule(ns.cfg, e.Node)
		}
		rec.Labels = labelsInEffect(rec.Labels, rule)
	}
	switch was, known := ns.at[e.Node]; {
	case e.From == store.NodeReconfigured:
	case rec.PoolInEffect != "":
		rec.Pool = rec.PoolInEffect
	case known:
		rec.Pool = was.Pool
	default:
		rec.Pool = nodePool(ns.cfg, rec.Name, rec.Pool)
	}
	rec.PoolInEffect = ""
	return rec
}

// change takes history event e, in the window, into the nodes' shapes
// and returns the node_reshape it makes, if any: a registration whose
// GPUs or labels give the node another shape in the scenario than the
// one it had. The first shape of a node seen in the window, and
// unknown before, is its start (a deletion's: what the node was; a new
// node's: what it registered as).
func (ns *nodeShapes) change(i int, e store.NodeEvent) (scenario.Event, bool) {
	name := e.Node
	was, known := ns.at[name]
	var now store.Node
	switch {
	case e.Deleted != nil:
		now = ns.inPool(i, e, *e.Deleted)
	case e.Shape != nil:
		now = ns.inPool(i, e, *e.Shape)
	default:
		return scenario.Event{}, false
	}
	ns.at[name] = now
	if !known {
		if e.Deleted == nil && e.To != store.NodeUp {
			what := "registered again with another inventory"
			if e.From == store.NodeReconfigured {
				what = "was put in pool " + now.Pool + ", or relabeled, by a configuration reload"
			}
			ns.notes = append(ns.notes, fmt.Sprintf("node %s %s at %ds, and what it was before is not in the node history (registered before shapes were recorded): the replay runs it as the master has it now for the whole window",
				name, what, ns.secs(e.At)))
			now = store.Node{}
		}
		ns.start[name] = now
		return scenario.Event{}, false
	}
	if e.Deleted != nil || len(ns.start[name].GPUs) == 0 {
		return scenario.Event{}, false
	}
	if len(now.GPUs) == 0 {
		ns.notes = append(ns.notes, fmt.Sprintf("node %s registered with no GPUs at %ds: a scenario node has at least one slot, so the replay keeps its last shape",
			name, ns.secs(e.At)))
		ns.at[name] = was
		return scenario.Event{}, false
	}
	pool, shape := ns.shapeOf(now)
	move := ""
	if len(was.GPUs) > 0 {
		oldPool, old := ns.shapeOf(was)
		if pool != oldPool {
			move = ns.move(name, oldPool, pool, e.At)
		}
		if move == "" && sameScenarioShape(old, shape) {
			return scenario.Event{}, false
		}
	}
	shape.Name = name
	return scenario.Event{At: ns.secs(e.At), Kind: scenario.EventNodeReshape, Node: name, Shape: &shape, Pool: move}, true
}

// move is the pool that node name's move from pool from to pool to at
// at is written with: to, when the file has both pools and keeps the
// node's moves; "" otherwise, with a note, and the replay keeps the node
// in its pool in the file from then on.
func (ns *nodeShapes) move(name, from, to string, at time.Time) string {
	if !ns.moved[name] && ns.hasPool(from) && ns.hasPool(to) {
		return to
	}
	if !ns.moved[name] {
		ns.moved[name] = true
		missing := to
		if !ns.hasPool(from) {
			missing = from
		}
		ns.notes = append(ns.notes, fmt.Sprintf("node %s moved from pool %s to pool %s at %ds, and %s: the replay keeps it in %s, and its decisions there may differ from the live ones",
			name, from, to, ns.secs(at), ns.whyNoPool(missing), ns.sc.Pools[poolOfNode(ns.sc, name)].Name))
	}
	return ""
}

// whyNoPool says why the file lacks pool name: the configuration in force
// has it, but the export left it out (exportScenario's note), or it has
// not.
func (ns *nodeShapes) whyNoPool(name string) string {
	if poolConfig(ns.cfg, name) != nil {
		return "pool " + name + " is not in the exported scenario, as no node with GPUs is registered in it"
	}
	return "the configuration in force has no pool " + name
}

// hasPool reports whether the file has a pool named name.
func (ns *nodeShapes) hasPool(name string) bool {
	return slices.ContainsFunc(ns.sc.Pools, func(p scenario.Pool) bool { return p.Name == name })
}

// setStarts writes each node of the file whose start is known as it was
// then, in the pool it was in then (its node_reshape events move it on);
// a start in a pool the file lacks, or of a node whose moves are noted,
// keeps the node in the pool it has in the file, with a note.
func (ns *nodeShapes) setStarts() {
	for _, name := range slices.Sorted(maps.Keys(ns.start)) {
		rec := ns.start[name]
		if len(rec.GPUs) == 0 {
			continue
		}
		i := poolOfNode(ns.sc, name)
		p := &ns.sc.Pools[i]
		k := slices.IndexFunc(p.Nodes, func(n scenario.Node) bool { return n.Name == name })
		pool, sn := ns.shapeOf(rec)
		sn.Line = p.Nodes[k].Line
		if pool == p.Name {
			p.Nodes[k] = sn
			continue
		}
		to := slices.IndexFunc(ns.sc.Pools, func(q scenario.Pool) bool { return q.Name == pool })
		if ns.moved[name] || to < 0 || len(p.Nodes) == 1 {
			if !ns.moved[name] {
				// A pool of the file has at least one node.
				ns.moved[name] = true
				why := "pool " + p.Name + " would have no node without it"
				if to < 0 {
					why = ns.whyNoPool(pool)
				}
				ns.notes = append(ns.notes, fmt.Sprintf("node %s was in pool %s when the window began, and later in pool %s, and %s, so the replay runs it in %s for the whole window",
					name, pool, p.Name, why, p.Name))
			}
			p.Nodes[k] = sn
			continue
		}
		p.Nodes = slices.Delete(p.Nodes, k, k+1)
		q := &ns.sc.Pools[to]
		q.Nodes = append(q.Nodes, sn)
		slices.SortFunc(q.Nodes, func(a, b scenario.Node) int { return cmp.Compare(a.Name, b.Name) })
	}
}

// shapeOf is the pool and scenario node of rec, a node of the history
// with the pool it was in and the labels in effect then (inPool).
func (ns *nodeShapes) shapeOf(rec store.Node) (string, scenario.Node) {
	sn := scenario.Node{Node: spec.Node{Name: rec.Name, Labels: maps.Clone(rec.Labels)}, Slots: len(rec.GPUs), GPU: rec.GPUs[0].Type}
	if len(sn.Labels) == 0 {
		sn.Labels = nil
	}
	return rec.Pool, sn
}

// sameScenarioShape reports whether a and b are one node to a scenario:
// slots, GPU type and labels.
func sameScenarioShape(a, b scenario.Node) bool {
	return a.Slots == b.Slots && a.GPU == b.GPU && maps.Equal(a.Labels, b.Labels)
}

func (ns *nodeShapes) secs(t time.Time) int64 { return max(int64(t.Sub(ns.since)/time.Second), 0) }

// exportJobGPUs keeps each job's GPU type where its pool's nodes give a
// task of it room in that type, counting each node at its largest shape
// of the type, as the scenario's parser does (the file's shape and its
// node_reshape events), in every pool it is in during the window (the
// file's and those its node_reshape events move it to); elsewhere (a
// type of nodes gone before the window, a job submitted with
// allow_infeasible) the job replays on any type, with a note.
func exportJobGPUs(sc *scenario.Scenario) []string {
	best, in := largestShapes(sc)
	var notes []string
	for i := range sc.Jobs {
		j := &sc.Jobs[i]
		if j.GPU == "" {
			continue
		}
		k := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == j.Pool })
		if k >= 0 && sc.Pools[k].SharesNodesWith != "" {
			k = slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == sc.Pools[k].SharesNodesWith })
		}
		room := 0
		if k >= 0 {
			for _, n := range in[sc.Pools[k].Name] {
				room += best[n][j.GPU]
			}
		}
		if j.Slots > room {
			notes = append(notes, fmt.Sprintf("job %s asks for GPU type %s, of which its pool's nodes in the window have %d slots, fewer than its %d: it replays on any type",
				j.Name, j.GPU, room, j.Slots))
			j.GPU = ""
		}
	}
	return notes
}

// largestShapes is, for each node of sc, its largest slots of each GPU
// type, counting the file's shape and its node_reshape events, and for
// each pool the nodes in it at some time (the file's and those its
// node_reshape events move to it).
func largestShapes(sc *scenario.Scenario) (best map[string]map[string]int, in map[string][]string) {
	best, in = map[string]map[string]int{}, map[string][]string{}
	for _, p := range sc.Pools {
		for _, n := range p.Nodes {
			best[n.Name] = map[string]int{n.GPU: n.Slots}
			in[p.Name] = append(in[p.Name], n.Name)
		}
	}
	for _, e := range sc.Events {
		if e.Kind == scenario.EventNodeReshape && e.Shape != nil && best[e.Node] != nil {
			best[e.Node][e.Shape.GPU] = max(best[e.Node][e.Shape.GPU], e.Shape.Slots)
			if e.Pool != "" && !slices.Contains(in[e.Pool], e.Node) {
				in[e.Pool] = append(in[e.Pool], e.Node)
			}
		}
	}
	return best, in
}

// exportJobTopology keeps each job's topology (its file's, as the live
// master read it: whether a task spanning nodes must keep to one switch,
// the switch label of its nodes) where a task of it may span nodes in the
// file: larger than every node its pool has at some time, in its GPU
// type, counted as exportJobGPUs counts them. A scenario refuses it on a
// task that fits one node, which never spans nodes live either.
func exportJobTopology(sc *scenario.Scenario) {
	best, in := largestShapes(sc)
	for i := range sc.Jobs {
		j := &sc.Jobs[i]
		if j.Topology == "" {
			continue
		}
		k := slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == j.Pool })
		if k >= 0 && sc.Pools[k].SharesNodesWith != "" {
			k = slices.IndexFunc(sc.Pools, func(p scenario.Pool) bool { return p.Name == sc.Pools[k].SharesNodesWith })
		}
		largest := 0
		if k >= 0 {
			for _, n := range in[sc.Pools[k].Name] {
				for gpu, slots := range best[n] {
					if j.GPU == "" || gpu == j.GPU {
						largest = max(largest, slots)
					}
				}
			}
		}
		if j.Slots <= largest {
			j.Topology = ""
		}
	}
}
