package sched

// Consolidation's searches look at every node of the pool that could be
// a target: for each, what its movers can free (moverSums) and which of
// them clearNode would pick for a need (pickFacts). On a half-full
// cluster a pass makes up to maxConsolidations searches over thousands of
// nodes, and between two searches only the nodes whose tasks were moved
// or preempted change; so what a node's movers can free is kept for the
// rest of the pass, and forgotten for a node when one of its tasks is
// evicted, restored or finally evicted (preemptor's evict, restore and
// setFinal call forget).
//
// Why that is exact: for a task the pass indexed as a mover (not gone,
// not interactive), movable is !final && !evicted && !budgetSpent, since
// the rest of gone (Preempting, Preemptible, the minimum run time against
// Now) is the snapshot's and fixed for the pass. final and evicted change
// only in evict, restore and setFinal, which forget the task's nodes. The
// preemption budget counts every project's preemptions in the pass, so a
// pass with any budget set keeps nothing (budgets). What is kept depends
// on no node's free slots: the need a pick was for is part of its key.

// clearFacts is what node n's movers can free, as moverSums and pickFacts
// work it out; sums and pick say which parts hold.
type clearFacts struct {
	lost     int64 // work lost by all the movable movers
	pickLost int64 // work lost by the ones picked for need
	slots    int32 // slots of all the movable movers
	need     int32
	moved    int32 // slots picked for need, or -1
	count    int32 // movers picked for need
	sums     bool
	pick     bool
}

// beginFacts sizes and clears the kept facts, once the pass's first pool
// has its movers indexed.
func (c *consolidation) beginFacts() {
	c.facts = resize(c.facts, len(c.s.Nodes))
	c.budgets = false
	for i := range c.s.Projects {
		c.budgets = c.budgets || c.s.Projects[i].PreemptBudget > 0
	}
}

// keep reports whether facts may be kept in this pass.
func (c *consolidation) keep() bool { return !c.noFacts && !c.budgets && len(c.facts) > 0 }

// forget drops what is kept about the nodes of allocation a, whose
// movability is changing.
func (c *consolidation) forget(a int32) {
	if len(c.facts) == 0 {
		return
	}
	for _, ns := range c.s.Allocs[a].Nodes {
		c.facts[ns.Node] = clearFacts{}
	}
}

// moverSums returns the slots the movable tasks on node n hold and the
// work they would lose: clearNode can free need slots of n iff need <= 0
// or slots >= need, and a node cleared whole loses lost.
func (c *consolidation) moverSums(n int32) (slots int32, lost int64) {
	if len(c.at) == 0 { // no pool's movers indexed: none anywhere
		return 0, 0
	}
	keep := c.keep()
	if keep && c.facts[n].sums {
		c.kept++
		return c.facts[n].slots, c.facts[n].lost
	}
	rg := c.at[n]
	for _, a := range c.movers[rg[0]:rg[1]] {
		if c.movable(a) {
			al := &c.s.Allocs[a]
			slots += al.Nodes[0].Slots
			lost += al.Lost(c.s.Now)
		}
	}
	if keep {
		f := &c.facts[n]
		f.slots, f.lost, f.sums = slots, lost, true
	}
	return slots, lost
}

// pickFacts returns what clearNode(n, need) would return, how many movers
// it would pick and the work they would lose, without keeping the pick.
func (c *consolidation) pickFacts(n, need int32) (moved, count int32, lost int64) {
	keep := c.keep()
	if keep {
		if f := &c.facts[n]; f.pick && f.need == need {
			c.kept++
			return f.moved, f.count, f.pickLost
		}
	}
	lo := len(c.pick)
	moved = c.clearNode(n, need)
	for _, a := range c.pick[lo:] {
		lost += c.s.Allocs[a].Lost(c.s.Now)
	}
	count = int32(len(c.pick) - lo)
	c.pick = c.pick[:lo]
	if keep {
		f := &c.facts[n]
		f.need, f.moved, f.count, f.pickLost, f.pick = need, moved, count, lost, true
	}
	return moved, count, lost
}

// clearCost returns the slots clearNode would move on n for need, or -1,
// without keeping the pick.
func (c *consolidation) clearCost(n, need int32) int32 {
	moved, _, _ := c.pickFacts(n, need)
	return moved
}
